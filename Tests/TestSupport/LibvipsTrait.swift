import Testing
import VipsKit

/// Starts libvips (`Vips.start`) before the tests of a suite, as a program does at its
/// entry: `@Suite(.libvips)`. VipsKit refuses to be used before it.
public struct LibvipsTrait: SuiteTrait, TestTrait, TestScoping {
    public var isRecursive: Bool { true }

    public func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        Vips.start()
        try await function()
    }
}

extension Trait where Self == LibvipsTrait {
    /// libvips started before the suite's tests run.
    public static var libvips: Self { LibvipsTrait() }
}
