// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "cardrender",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "VipsKit", targets: ["VipsKit"]),
        .library(name: "CardKit", targets: ["CardKit"]),
        .library(name: "RenderCache", targets: ["RenderCache"]),
        .executable(name: "cardrender", targets: ["cardrender"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-system", from: "1.8.1"),
        .package(url: "https://github.com/apple/swift-crypto", "3.12.3"..<"5.0.0"),
    ],
    targets: [
        .systemLibrary(
            name: "CVips",
            pkgConfig: "vips",
            providers: [.apt(["libvips-dev"])]
        ),
        .target(name: "CVipsShim", dependencies: ["CVips"]),
        .target(
            name: "VipsKit",
            dependencies: ["CVips", "CVipsShim", .product(name: "SystemPackage", package: "swift-system")]
        ),
        .target(
            name: "CardKit",
            dependencies: ["VipsKit", .product(name: "SystemPackage", package: "swift-system")]
        ),
        .target(
            name: "RenderCache",
            dependencies: [
                "VipsKit", "CardKit", .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "SystemPackage", package: "swift-system"),
            ]
        ),
        .target(
            name: "CardPipeline",
            dependencies: [
                "CardKit", "VipsKit", "RenderCache", .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "SystemPackage", package: "swift-system"),
            ]
        ),
        .executableTarget(
            name: "cardrender",
            dependencies: [
                "CardKit",
                "CardPipeline",
                "RenderCache",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "SystemPackage", package: "swift-system"),
            ]
        ),
        .target(name: "TestSupport", dependencies: ["VipsKit"], path: "Tests/TestSupport"),
        .testTarget(name: "VipsKitTests", dependencies: ["VipsKit", "TestSupport"]),
        .testTarget(name: "CardKitTests", dependencies: ["CardKit", "VipsKit", "TestSupport"]),
        .testTarget(name: "RenderCacheTests", dependencies: ["RenderCache", "TestSupport"]),
        .testTarget(name: "CardPipelineTests", dependencies: ["CardPipeline", "CardKit", "TestSupport"]),
        .testTarget(name: "CLITests", dependencies: ["cardrender", "VipsKit", "TestSupport"]),
    ],
    swiftLanguageModes: [.v6]
)
