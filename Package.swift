// swift-tools-version: 6.1
import PackageDescription

// libvips, GLib and Pango are not linked but opened on first use (CLazyLibraries), so a
// fast-path process never loads them. Their headers' directories are given here instead
// of by pkg-config: SwiftPM links a pkg-config module's libraries into every product that
// uses it. These are the directories `pkg-config --cflags vips pangocairo` names on Debian.
#if arch(arm64)
    let multiarch = "aarch64-linux-gnu"
#else
    let multiarch = "x86_64-linux-gnu"
#endif
let nativeHeaderDirectories = [
    "/usr/include/glib-2.0", "/usr/lib/\(multiarch)/glib-2.0/include", "/usr/include/pango-1.0",
    "/usr/include/harfbuzz", "/usr/include/freetype2", "/usr/include/cairo",
]
let nativeHeaders = nativeHeaderDirectories.map { "-I" + $0 }
// OpenCV's headers, unpacked from Debian's libopencv-core-dev and libopencv-objdetect-dev by
// scripts/setup.sh into .build/opencv: installing those packages would pull in 93 MB of Qt,
// FFmpeg and GDAL (libopencv-objdetect-dev depends on libopencv-highgui-dev) that no build
// uses. Without them there is no `libopencv_core.so` link name, so the face detector plugin
// links the runtime libraries by path; the binary opens the plugin on first use (CFaceDetector).
let packageDirectory = String(#filePath.dropLast("/Package.swift".count))
let openCVHeaders = ["-I" + packageDirectory + "/.build/opencv/usr/include/opencv4"]
let openCVLibraries = ["objdetect", "core"].map { "/usr/lib/\(multiarch)/libopencv_\($0).so.406" }

/// Where every C and C++ target and every system module lives: one folder each.
let nativeFolder = "Sources/Native"

// The C targets are compiled optimised in every configuration, so the tests run the same
// code that ships (at -O2 a setjmp handler bug showed up that -O0 hid), with warnings as
// errors. The sanitizer phase (`scripts/sanitize.sh`, run by CI) builds with
// CARDRENDER_SANITIZE=1 and `--sanitize=address`: our C and C++ are also built with
// UndefinedBehaviorSanitizer, trapping on the first undefined operation (Swift's toolchain
// has no UBSan runtime to link on Linux).
let nativeFlags =
    ["-O2", "-Werror"]
    + (Context.environment["CARDRENDER_SANITIZE"] == "1"
        ? ["-fsanitize=undefined", "-fsanitize-trap=undefined", "-fno-omit-frame-pointer"] : [])

/// A C or C++ target of ours, `Sources/Native/<name>`: built with `nativeFlags` plus the extra
/// header directories it names, linking the system libraries it names.
func native(
    _ name: String, dependencies: [Target.Dependency] = [], includes: [String] = [], links: [String] = [],
    linkerFlags: [String] = []
) -> Target {
    .target(
        name: name, dependencies: dependencies, path: nativeFolder + "/" + name,
        cSettings: [.unsafeFlags(nativeFlags + includes)], cxxSettings: [.unsafeFlags(nativeFlags + includes)],
        linkerSettings: links.map { .linkedLibrary($0) } + (linkerFlags.isEmpty ? [] : [.unsafeFlags(linkerFlags)]))
}

/// A library's headers as a system module (`Sources/Native/<name>/module.modulemap`): nothing linked.
func headers(_ name: String) -> Target { .systemLibrary(name: name, path: nativeFolder + "/" + name) }

// Linux only: the code calls Glibc directly (O_TMPFILE, /proc/self, mallopt) and is built
// and tested on Debian 12; no Apple platform is declared because none is built.
let package = Package(
    name: "cardrender",
    products: [
        .library(name: "ImageCore", targets: ["ImageCore"]),
        .library(name: "VipsKit", targets: ["VipsKit"]),
        .library(name: "PhotoSources", targets: ["PhotoSources"]),
        .library(name: "Thumbnails", targets: ["Thumbnails"]),
        .library(name: "CardKit", targets: ["CardKit"]),
        .library(name: "FastPath", targets: ["FastPath"]),
        .library(name: "PressKit", targets: ["PressKit"]),
        .library(name: "Mail", targets: ["Mail"]),
        .library(name: "FileUtilities", targets: ["FileUtilities"]),
        .library(name: "RenderCache", targets: ["RenderCache"]),
        .library(name: "CardPipeline", targets: ["CardPipeline"]),
        .library(name: "ServerShell", targets: ["ServerShell"]),
        .library(name: "ThumbServer", targets: ["ThumbServer"]),
        .library(name: "CardService", targets: ["CardService"]),
        .executable(name: "cardrender", targets: ["cardrender"]),
        // libFaceDetectorPlugin.so, beside the binary: opened by CFaceDetector on first use.
        .library(name: "FaceDetectorPlugin", type: .dynamic, targets: ["FaceDetectorPlugin"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-system", from: "1.8.1"),
        .package(url: "https://github.com/apple/swift-crypto", "3.12.3"..<"5.0.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1", traits: []),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-extras", from: "1.35.2"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/vapor/sqlite-nio", from: "1.13.2"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        .package(url: "https://github.com/vapor/sql-kit", from: "3.36.0"),
        .package(url: "https://github.com/vapor/sqlite-kit", from: "4.5.2"),
        .package(url: "https://github.com/vapor/postgres-kit", from: "2.17.0"),
        .package(url: "https://github.com/apple/swift-openapi-runtime", from: "1.13.4"),
        .package(url: "https://github.com/hummingbird-project/swift-openapi-hummingbird", from: "2.1.0"),
    ],
    targets: [
        // The libvips C API's headers (apt `libvips-dev`); the library is opened by CLazyLibraries.
        headers("CVips"),
        // Defines the functions of libvips, GLib and Pango we call; each opens its library on first use.
        native("CLazyLibraries", includes: nativeHeaders, links: ["dl"]),
        native("CVipsShim", dependencies: ["CVips", "CLazyLibraries"], includes: nativeHeaders),
        // openat2(2), which glibc does not wrap, for ConfinedDirectory.
        native("CFileUtilities"),
        .target(
            name: "FileUtilities",
            dependencies: ["CFileUtilities", .product(name: "SystemPackage", package: "swift-system")]),
        // libjpeg-turbo (Debian libjpeg62-turbo-dev) with errors that return instead of exit().
        native("CJPEGBridge", links: ["jpeg"]),
        // libpng (Debian libpng-dev) with errors that return, for the fast path's PNGs.
        native("CPNGBridge", links: ["png16"]),
        // An embedded RGB profile (Display P3, ...) to sRGB with lcms2 (Debian liblcms2-dev).
        native("CColourTransform", links: ["lcms2"]),
        // The fast path's SIMD loops, runtime-dispatched (target_clones).
        native("CPixelKernels"),
        // Pango, cairo and fontconfig's headers (apt `libpango1.0-dev`); opened by CLazyLibraries.
        headers("CPango"),
        // The message side's text: layout, coverage of every character, drawing.
        native("CTextLayout", dependencies: ["CPango", "CLazyLibraries"], includes: nativeHeaders),
        // An HEIF photo's primary image straight through libheif (opened by CLazyLibraries).
        native("CHEIFBridge", dependencies: ["CLazyLibraries", "CPixelKernels"]),
        // OpenCV's cascade face detector (C++ behind a C interface), opened on first use.
        native("CFaceDetector", links: ["dl"]),
        // OpenCV's cascades behind one C function, its own shared library (the product
        // above); no target depends on it. It reads CFaceDetector's header for the types.
        native(
            "FaceDetectorPlugin",
            includes: openCVHeaders + ["-I" + packageDirectory + "/" + nativeFolder + "/CFaceDetector/include"],
            linkerFlags: openCVLibraries),
        // Data Matrix (ECC 200) symbols made and found with libdmtx (Debian libdmtx-dev): the
        // code on each card's back and its scans. Linked: 90 KB that needs only libc and libm.
        native("CDataMatrix", links: ["dmtx"]),
        // libqpdf's C API headers (apt `libqpdf-dev`); the library is opened by CLazyLibraries.
        headers("CQPDF"),
        // How far a Flate stream inflates, counted before libqpdf decodes it (zlib, apt `zlib1g-dev`).
        native("CInflate", links: ["z"]),
        // PDF documents written and read through libqpdf: the press print files and preflight.
        .target(name: "PressPDF", dependencies: ["CQPDF", "CInflate", "CLazyLibraries"]),
        // The native libraries' versions from their headers, for the cache key (nothing linked).
        native("CNativeVersions", includes: nativeHeaders + ["-I/usr/include/librsvg-2.0"]),
        // The image vocabulary every layer shares (bytes, formats, encode options, decode
        // policy, input errors): no library calls.
        .target(name: "ImageCore", dependencies: [.product(name: "SystemPackage", package: "swift-system")]),
        .target(
            name: "FastPath",
            dependencies: [
                "ImageCore", "CJPEGBridge", "CPNGBridge", "CPixelKernels", "CColourTransform", "CHEIFBridge",
            ]),
        .target(
            name: "VipsKit",
            dependencies: [
                "ImageCore", "CVips", "CVipsShim", "FileUtilities",
            ]
        ),
        // Postal data with no pixels: addresses as fields, per-country formats and rules
        // (generated from libaddressinput's data), country names, the address side's zones,
        // mail classes, deposit manifests.
        .target(name: "Mail", exclude: ["Generated/PROVENANCE.md"]),
        // Preflight (ink and postal zones), imposition (sorted, cut-and-stack) and sheet
        // layout, the presses and paper sizes: PDF work that needs no card.
        .target(name: "PressKit", dependencies: ["FastPath", "PressPDF", "Mail", "FileUtilities"]),
        // A photo read for rendering: its header read once, the fast decode sources (libjpeg-turbo,
        // libheif; streamed or whole), decode levels, the decode budget, decoded photos kept
        // between requests, and the choice of executor; cards and thumbnails both read through it.
        .target(name: "PhotoSources", dependencies: ["ImageCore", "FastPath", "VipsKit"]),
        // GD-style thumbnails and boxes: the request, its geometry and plan, both executors,
        // ThumbHash placeholders, and the parameters' parser shared by `/thumb` and `cardrender thumb`.
        .target(
            name: "Thumbnails", dependencies: ["ImageCore", "FastPath", "VipsKit", "FileUtilities", "PhotoSources"]),
        .target(
            name: "CardKit",
            dependencies: [
                "ImageCore", "VipsKit", "FastPath", "FileUtilities", "PhotoSources", "Thumbnails", "CTextLayout",
                "PressPDF", "PressKit",
                "CFaceDetector", "CDataMatrix", "Mail", .product(name: "SystemPackage", package: "swift-system"),
            ]
        ),
        .target(
            name: "RenderCache",
            dependencies: [
                "FileUtilities", .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        .target(
            name: "ObjectStore",
            dependencies: [
                "RenderCache",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
            ]
        ),
        .target(
            name: "CardPipeline",
            dependencies: [
                "ImageCore", "PhotoSources", "Thumbnails", "Mail", "CardKit", "VipsKit", "RenderCache",
                "FileUtilities", "CNativeVersions",
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        // The HTTP server's shell: the socket, connection limits, request checks, answers on the
        // event loop, the access log, /healthz and /metrics, and `ServerApplication.build`,
        // which mounts the route groups that the thumbnail server and the postcard service make.
        .target(
            name: "ServerShell",
            dependencies: [
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "NIOHTTPTypesHTTP1", package: "swift-nio-extras"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "SystemPackage", package: "swift-system"),
            ]
        ),
        .target(
            name: "ThumbServer",
            dependencies: [
                "ServerShell", "ImageCore", "PhotoSources", "Thumbnails", "VipsKit", "RenderCache", "CardPipeline",
                "FileUtilities",
                "ObjectStore",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        // The postcard service (`/v1`): photos, previews, orders on a durable queue in SQLite
        // or PostgreSQL, print runs. Generated/ is swift-openapi-generator's output for
        // openapi.yaml, made by scripts/generate-openapi.sh and committed (see that script).
        .target(
            name: "CardService",
            dependencies: [
                "ServerShell", "ImageCore", "PhotoSources", "Thumbnails", "Mail", "PressKit", "CardKit", "VipsKit",
                "RenderCache",
                "CardPipeline",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "SQLKit", package: "sql-kit"),
                .product(name: "SQLiteKit", package: "sqlite-kit"),
                .product(name: "SQLiteNIO", package: "sqlite-nio"),
                .product(name: "PostgresKit", package: "postgres-kit"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "OpenAPIHummingbird", package: "swift-openapi-hummingbird"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            exclude: ["API/openapi.yaml"],
            // The studio page's files, every file of the folder compiled into the binary (served at
            // /studio; `StudioPage.files` names them, and a test checks that it names them all).
            resources: [.embedInCode("Studio/web")]
        ),
        .executableTarget(
            name: "cardrender",
            dependencies: [
                "ServerShell", "ImageCore", "PhotoSources", "Thumbnails", "Mail", "PressKit",
                "CardKit",
                "CardPipeline",
                "RenderCache",
                "FileUtilities",
                "VipsKit",
                "ThumbServer",
                "CardService",
                "ObjectStore",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "SystemPackage", package: "swift-system"),
            ]
        ),
        .target(name: "TestSupport", dependencies: ["ImageCore", "VipsKit", "ObjectStore"], path: "Tests/TestSupport"),
        .testTarget(name: "ImageCoreTests", dependencies: ["ImageCore"]),
        .testTarget(name: "FileUtilitiesTests", dependencies: ["FileUtilities", "TestSupport"]),
        .testTarget(
            name: "MailTests",
            dependencies: [
                "PhotoSources", "Thumbnails",
                "Mail", "ImageCore", "FastPath", "CardKit", "PressKit", "PressPDF", "VipsKit", "TestSupport",
            ]),
        .testTarget(
            name: "VipsKitTests",
            dependencies: ["ImageCore", "VipsKit", "FileUtilities", "TestSupport", "CLazyLibraries"]),
        .testTarget(
            name: "ThumbnailsTests",
            dependencies: ["Thumbnails", "PhotoSources", "ImageCore", "VipsKit", "TestSupport"]),
        .testTarget(
            name: "CardKitTests",
            dependencies: [
                "Mail",
                "PhotoSources", "Thumbnails", "ImageCore", "CardKit", "PressKit", "VipsKit", "FastPath", "PressPDF",
                "TestSupport",
            ]),
        .testTarget(
            name: "RenderCacheTests",
            dependencies: [
                "RenderCache", "FileUtilities", "TestSupport", .product(name: "SystemPackage", package: "swift-system"),
            ]),
        .testTarget(
            name: "CardPipelineTests",
            dependencies: [
                "Mail",
                "PhotoSources", "Thumbnails", "ImageCore", "CardPipeline", "CardKit", "PressKit", "RenderCache",
                "VipsKit", "TestSupport",
            ]),
        .testTarget(
            name: "ObjectStoreTests",
            dependencies: [
                "ObjectStore", "RenderCache", "TestSupport", "cardrender",
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            exclude: ["SigV4Vectors"]),
        .testTarget(
            name: "CLITests",
            dependencies: [
                "PhotoSources", "Thumbnails",
                "ImageCore", "FastPath", "PressKit", "PressPDF", "cardrender", "CardPipeline", "VipsKit", "TestSupport",
            ],
            // The expected help texts; HelpTextTests reads them by path from the source tree.
            exclude: ["Help"]),
        .testTarget(
            name: "CardServiceTests",
            dependencies: [
                "ServerShell",
                "PhotoSources", "Thumbnails",
                "ImageCore", "CardService", "ThumbServer", "cardrender", "CardKit", "CardPipeline", "RenderCache",
                "VipsKit", "TestSupport", "PressKit", "Mail",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        .testTarget(
            name: "DocsTests", dependencies: ["ImageCore", "Thumbnails", "VipsKit", "TestSupport"]),
        .testTarget(
            name: "ThumbServerTests",
            dependencies: [
                "CardKit", "CardPipeline", "FileUtilities", "ObjectStore",
                "ServerShell",
                "PhotoSources", "Thumbnails",
                "ImageCore", "ThumbServer", "cardrender", "VipsKit", "RenderCache", "TestSupport",
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6],
    cxxLanguageStandard: .cxx17
)

// Every Swift target of ours, tests included, builds with warnings as errors; the native
// targets are told apart by their folder, so there is no second list of them.
// MemberImportVisibility: a file sees the members of the modules it imports, not of every
// module the target links, so its imports say what it uses.
let strictSwift: [SwiftSetting] = [
    .unsafeFlags(["-warnings-as-errors"] + nativeHeaderDirectories.flatMap { ["-Xcc", "-I" + $0] }),
    .enableUpcomingFeature("MemberImportVisibility"),
]
for target in package.targets where !(target.path ?? "").hasPrefix(nativeFolder) {
    target.swiftSettings = (target.swiftSettings ?? []) + strictSwift
}
