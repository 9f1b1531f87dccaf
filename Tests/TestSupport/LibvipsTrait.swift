import Testing
import VipsKit

/// Starts libvips (`Vips.start`) before the tests of a suite, as a program does at its
/// entry: `@Suite(.libvips)`. VipsKit refuses to be used before it.
///
/// It also gives each image one libvips thread, as `render`, `thumb` and `serve` do with as
/// many workers as cores: libvips 8.14 notices a truncated JPEG decoded at 1/8 scale on some
/// thread counts and not on others (seen: 1 and 2 threads fail it, 4 render it), so tests
/// that expect damaged data to be refused must not depend on the machine's core count.
public struct LibvipsTrait: SuiteTrait, TestTrait, TestScoping {
    public var isRecursive: Bool { true }

    public func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        Vips.start()
        if Vips.concurrency != 1 { Vips.concurrency = 1 }
        try await function()
    }
}

extension Trait where Self == LibvipsTrait {
    /// libvips started before the suite's tests run.
    public static var libvips: Self { LibvipsTrait() }
}
