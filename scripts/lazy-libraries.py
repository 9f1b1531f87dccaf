"""Writes Sources/Native/CLazyLibraries/include/CLazyLibraries.inc from what the code calls and
what the libraries' headers declare, so that no line of the table is kept by hand.

Which functions: the symbols our compiled objects leave undefined (`nm -u` over the debug
build's objects of our own targets) that one of the groups' shared libraries defines (`nm -D`),
and `CLazyLibraries_variadic_NAME`, a libvips operation called through CLAZY_VARIADIC. The
group is the library that defines the symbol (GLib, libvips, the text libraries, libheif,
libqpdf: the groups of Loader.c).

Their prototypes: the headers Wrappers.c includes, read by clang itself (its AST as JSON), so
the parameter and return types are the headers' own.

  python3 scripts/lazy-libraries.py           # rewrites the table (after a debug build)
  python3 scripts/lazy-libraries.py --check   # exits 1 when the table is not what it would write

CI runs it with --check after the test command's build. Written by hand: no tool here reads a C
prototype back out of a header in a form a wrapper can be generated from; clang's AST has the
facts, and this turns them into the table's lines.
"""

import json
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TABLE = os.path.join(ROOT, "Sources/Native/CLazyLibraries/include/CLazyLibraries.inc")
MULTIARCH = subprocess.run(["gcc", "-print-multiarch"], capture_output=True, text=True).stdout.strip() or "x86_64-linux-gnu"
LIBDIR = f"/usr/lib/{MULTIARCH}"
BUILD = os.path.join(ROOT, ".build", f"{os.uname().machine}-unknown-linux-gnu", "debug")

# The groups as Loader.c opens them, in the table's order: (name, title, shared libraries).
GROUPS = [
    ("glib", "GLib, GObject, GModule", ["libgobject-2.0.so.0", "libgmodule-2.0.so.0", "libglib-2.0.so.0"]),
    ("libvips", "libvips", ["libvips.so.42"]),
    (
        "text",
        "Pango, PangoCairo, PangoFT2, cairo, fontconfig",
        ["libpangocairo-1.0.so.0", "libpangoft2-1.0.so.0", "libpango-1.0.so.0", "libcairo.so.2", "libfontconfig.so.1"],
    ),
    ("heif", "libheif", ["libheif.so.1"]),
    ("qpdf", "libqpdf (its C API)", ["libqpdf.so.29"]),
]
# The headers Wrappers.c is compiled against, and their directories (Package.swift's).
HEADERS = [
    "fontconfig/fontconfig.h", "gmodule.h", "libheif/heif.h", "pango/pangocairo.h", "pango/pangofc-font.h",
    "pango/pangofc-fontmap.h", "qpdf/qpdf-c.h", "vips/vips.h",
]
INCLUDES = [
    "/usr/include/glib-2.0", f"{LIBDIR}/glib-2.0/include", "/usr/include/pango-1.0", "/usr/include/harfbuzz",
    "/usr/include/freetype2", "/usr/include/cairo",
]
HEADER = """// The functions cardrender calls in the libraries CLazyLibraries opens on first use, one
// line each: the one table that the definitions (Wrappers.c), the check made when a library
// is opened (every name resolved, or the load fails naming the missing function) and the
// variadic operations' getters (CLazyLibraries.h) are all expanded from.
//   FUNCTION(group, return type, name, (parameters), (arguments))
//   PROCEDURE(group, name, (parameters), (arguments))
//   VARIADIC(group, name): libvips's operations, called through CLAZY_VARIADIC(name)
// Written by scripts/lazy-libraries.py from what the code calls and the headers declare; do
// not edit (CI fails when it is not what the script writes). LazyLibraryTableTests checks
// that each line passes its parameters on in order.
"""


def run(arguments):
    return subprocess.run(arguments, capture_output=True, text=True, check=True).stdout


def called():
    """The symbols our objects leave undefined, and the variadic operations they get."""
    # Each target's source files by name: an object counts only while its source exists (the
    # build folder keeps the objects of files since removed).
    sources = {}
    for parent in ("Sources", "Sources/Native"):
        for target in os.listdir(os.path.join(ROOT, parent)):
            if target in ("Native", "CLazyLibraries"):
                continue
            sources[target] = {name for _, _, names in os.walk(os.path.join(ROOT, parent, target)) for name in names}
    objects = []
    for directory in os.listdir(BUILD):
        target = directory[: -len(".build")]
        if directory.endswith(".build") and target in sources:
            folder = os.path.join(BUILD, directory)
            objects += [
                os.path.join(folder, name)
                for name in os.listdir(folder)
                if name.endswith(".o") and name[: -len(".o")] in sources[target]
            ]
    if not objects:
        sys.exit(f"lazy-libraries: no objects under {BUILD}: build first (swift build --build-tests)")
    symbols = set()
    for line in run(["nm", "-u", "--format=posix"] + sorted(objects)).splitlines():
        parts = line.split()
        if len(parts) >= 2 and parts[1] == "U":
            symbols.add(parts[0])
    return symbols


def defined_by_group():
    """Each group's exported functions."""
    exported = {}
    for name, _, libraries in GROUPS:
        names = set()
        for library in libraries:
            for line in run(["nm", "-D", "--defined-only", "--format=posix", os.path.join(LIBDIR, library)]).splitlines():
                parts = line.split()
                if len(parts) >= 2 and parts[1] in ("T", "W", "i"):
                    names.add(parts[0].split("@")[0])
        exported[name] = names
    return exported


def prototypes(names):
    """name -> (return type, [(type, parameter name)], variadic) from clang's AST of the headers."""
    with tempfile.NamedTemporaryFile("w", suffix=".c", delete=False) as source:
        source.write("".join(f"#include <{header}>\n" for header in HEADERS))
    try:
        arguments = ["clang", "-fsyntax-only", "-Xclang", "-ast-dump=json", source.name]
        arguments += [f"-I{directory}" for directory in INCLUDES]
        ast = json.loads(run(arguments))
    finally:
        os.unlink(source.name)
    found = {}
    for node in ast.get("inner", []):
        if node.get("kind") != "FunctionDecl" or node.get("name") not in names or node["name"] in found:
            continue
        qual = node["type"]["qualType"]
        parameters = [
            (inner["type"]["qualType"], inner.get("name") or f"p{index}")
            for index, inner in enumerate(i for i in node.get("inner", []) if i.get("kind") == "ParmVarDecl")
        ]
        found[node["name"]] = (return_type(qual), parameters, bool(node.get("variadic")))
    return found


def return_type(qual):
    """The return type of a function type written `R (P1, P2)`: R is what precedes the
    parameters' opening parenthesis, found from the end (R may itself hold parentheses)."""
    depth = 0
    for index in range(len(qual) - 1, -1, -1):
        if qual[index] == ")":
            depth += 1
        elif qual[index] == "(":
            depth -= 1
            if depth == 0:
                return qual[:index].strip()
    raise ValueError(qual)


def declaration(kind, name):
    """A parameter of type `kind` called `name`, as C writes it (a function pointer's name
    goes inside its parentheses, an array's before its brackets)."""
    pointer = re.search(r"\(\*\)", kind)
    if pointer:
        return kind[: pointer.start()] + f"(*{name})" + kind[pointer.end():]
    bracket = kind.find("[")
    if bracket >= 0:
        return kind[:bracket].rstrip() + f" {name}" + kind[bracket:]
    return f"{kind}{'' if kind.endswith('*') else ' '}{name}"


def table():
    symbols = called()
    exported = defined_by_group()
    variadic = {symbol[len("CLazyLibraries_variadic_"):] for symbol in symbols if symbol.startswith("CLazyLibraries_variadic_")}
    wanted = {}
    for name, _, _ in GROUPS:
        for symbol in sorted(symbols | variadic):
            if symbol in exported[name] and symbol not in wanted:
                wanted[symbol] = name
    declared = prototypes(set(wanted))
    missing = sorted(set(wanted) - set(declared))
    if missing:
        sys.exit(f"lazy-libraries: no prototype in the headers for {', '.join(missing)}")
    lines = [HEADER]
    for group, title, _ in GROUPS:
        lines.append(f"\n// {title}\n")
        for name in sorted(n for n, g in wanted.items() if g == group and n not in variadic):
            result, parameters, is_variadic = declared[name]
            if is_variadic:
                sys.exit(f"lazy-libraries: {name} is variadic: call it through CLAZY_VARIADIC")
            listed = ", ".join(declaration(kind, parameter) for kind, parameter in parameters) or "void"
            passed = ", ".join(parameter for _, parameter in parameters)
            if result == "void":
                lines.append(f"PROCEDURE({group}, {name}, ({listed}), ({passed}))\n")
            else:
                lines.append(f"FUNCTION({group}, {result}, {name}, ({listed}), ({passed}))\n")
    lines.append("\n// libvips's operations (variadic: called through CLAZY_VARIADIC)\n")
    for name in sorted(variadic):
        if wanted.get(name) != "libvips":
            sys.exit(f"lazy-libraries: CLAZY_VARIADIC({name}) names no libvips function")
        lines.append(f"VARIADIC(libvips, {name})\n")
    return "".join(lines)


def main():
    written = table()
    if "--check" in sys.argv[1:]:
        with open(TABLE) as current:
            if current.read() != written:
                sys.exit("lazy-libraries: CLazyLibraries.inc is not what the code calls and the headers declare: "
                         "run python3 scripts/lazy-libraries.py")
        print("lazy-libraries: the table is current")
        return
    with open(TABLE, "w") as output:
        output.write(written)
    print(f"lazy-libraries: {TABLE} written")


if __name__ == "__main__":
    main()
