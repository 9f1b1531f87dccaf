import Benchmark
import BenchmarkSupport
import FastPath
import Foundation
import ImageCore
import VipsKit

/// The fast path's stages one by one, on the postcard of a 1800x1200 JPEG (A6 at 300 dpi
/// with 3 mm bleed: 1748x1240) and of a 12 MP JPEG, so that a regression in one kernel
/// shows by itself. "floor" is decode + print encode alone: no card can cost less.
let benchmarks: @Sendable () -> Void = {
    Vips.start()
    Vips.concurrency = 1
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .cpuTotal, .throughput],
        timeUnits: .milliseconds,
        maxDuration: .seconds(5),
        maxIterations: 200
    )
    let small = corpusPhoto("orientation/Landscape_1.jpg")  // 1800x1200
    let large = corpusPhoto("photos/phone-4032x3024.jpg")
    let card = (width: 1748, height: 1240)

    func decode(_ data: ImageData, scale: Int) -> MemoryImage {
        data.withUnsafeBytes { bytes in
            // The corpus files decode cleanly; a failure here is a broken benchmark setup.
            try! JPEGCodec.decode(bytes, scale: scale, strict: true).image
        }
    }
    /// The cover box of `image` for the card: centred, the card's aspect ratio.
    func cover(_ image: MemoryImage) -> (x: Double, y: Double, width: Double, height: Double) {
        let scale = max(Double(card.width) / Double(image.width), Double(card.height) / Double(image.height))
        let (width, height) = (Double(card.width) / scale, Double(card.height) / scale)
        return ((Double(image.width) - width) / 2, (Double(image.height) - height) / 2, width, height)
    }
    let decodedSmall = decode(small, scale: 1)
    let decodedLarge = decode(large, scale: 2)
    let print = PixelKernels.resample(decodedSmall, box: cover(decodedSmall), width: card.width, height: card.height)
    let sepia: [Float] = [0.393, 0.769, 0.189, 0.349, 0.686, 0.168, 0.272, 0.534, 0.131]
    // Frame-like art: a band of opaque colour round the edge, a soft inner edge, clear inside.
    let paint = MemoryImage(width: card.width, height: card.height, colour: [200, 40, 40])
    var alpha = [UInt8](repeating: 0, count: card.width * card.height)
    for y in 0..<card.height {
        for x in 0..<card.width {
            let edge = min(min(x, card.width - 1 - x), min(y, card.height - 1 - y))
            alpha[y * card.width + x] = UInt8(max(0, min(255, (120 - edge) * 8)))
        }
    }

    Benchmark("stage decode 1800x1200 JPEG, full scale") { benchmark in
        for _ in benchmark.scaledIterations { blackHole(decode(small, scale: 1)) }
    }
    Benchmark("stage decode 12MP JPEG at 1/2 (2016x1512)") { benchmark in
        for _ in benchmark.scaledIterations { blackHole(decode(large, scale: 2)) }
    }
    Benchmark("stage orient 1800x1200, a quarter turn") { benchmark in
        for _ in benchmark.scaledIterations { blackHole(PixelKernels.oriented(decodedSmall, 6)) }
    }
    Benchmark("stage resample 1800x1200 -> 1748x1240 cover (enlarge 3 %)") { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(
                PixelKernels.resample(decodedSmall, box: cover(decodedSmall), width: card.width, height: card.height))
        }
    }
    Benchmark("stage resample 2016x1512 -> 1748x1240 cover (reduce)") { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(
                PixelKernels.resample(decodedLarge, box: cover(decodedLarge), width: card.width, height: card.height))
        }
    }
    Benchmark("stage effect sepia 1748x1240") { benchmark in
        for _ in benchmark.scaledIterations {
            var image = print
            PixelKernels.colour(&image, matrix: sepia)
            blackHole(image)
        }
    }
    Benchmark("stage blend frame art 1748x1240") { benchmark in
        for _ in benchmark.scaledIterations {
            var image = print
            PixelKernels.blend(&image, colour: paint, alpha: alpha)
            blackHole(image)
        }
    }
    Benchmark("stage encode print 1748x1240 q92 4:4:4, standard Huffman") { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(try JPEGCodec.encode(print, quality: 92, fullChroma: true, optimize: false, dotsPerInch: 300))
        }
    }
    Benchmark("stage encode print 1748x1240 q92 4:4:4, optimised Huffman") { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(try JPEGCodec.encode(print, quality: 92, fullChroma: true, optimize: true, dotsPerInch: 300))
        }
    }
    Benchmark("stage sample 800 px: resample + q85 4:2:0 encode") { benchmark in
        for _ in benchmark.scaledIterations {
            let sample = PixelKernels.resize(print, width: 800, height: 567)
            blackHole(try JPEGCodec.encode(sample, quality: 85, fullChroma: false, optimize: true))
        }
    }
    let sample = PixelKernels.resize(print, width: 800, height: 567)
    Benchmark("stage small 200 px: resample from the sample") { benchmark in
        for _ in benchmark.scaledIterations { blackHole(PixelKernels.resize(sample, width: 200, height: 142)) }
    }
    Benchmark("stage small 200 px: PNG encode (libvips pngsave)") { benchmark in
        let small = PixelKernels.resize(sample, width: 200, height: 142)
        for _ in benchmark.scaledIterations {
            blackHole(
                try VImage.fromEightBitPixels(small.pixels, width: 200, height: 142, bands: 3)
                    .encoded(EncodeOptions(format: .png)))
        }
    }
    Benchmark("floor 1800x1200: decode + print encode only") { benchmark in
        for _ in benchmark.scaledIterations {
            let image = decode(small, scale: 1)
            blackHole(try JPEGCodec.encode(image, quality: 92, fullChroma: true, optimize: false, dotsPerInch: 300))
        }
    }
}
