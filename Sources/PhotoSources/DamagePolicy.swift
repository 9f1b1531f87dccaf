import ImageCore
import VipsKit

/// Runs the decoding stage of a render strictly, and again leniently when the policy
/// allows damaged input.
///
/// libvips decodes lazily, so damaged pixel data only shows when the pipeline runs. So
/// `decode` must end with the pixels in memory (`inMemory`) and do nothing but decode and
/// transform them: then a `VipsError` from its strict run, whose header was fine, means the
/// data is damaged. Encoding belongs after this call, so that an encoder failure (a format
/// limit, a missing module) stays a `VipsError`, cardrender's own failure, and is never
/// reported as damaged input nor retried.
/// - Parameters:
///   - data: the input, named in errors and warnings.
///   - policy: `.fail` turns the failure into `ImageInputError.damaged`; `.warn` retries
///     with `strict: false` and returns a warning with the result.
///   - decode: decodes and transforms the pixels into memory.
/// - Returns: the result and, after a lenient retry, the warning to report.
package func renderHandlingDamage<T>(
    _ data: ImageData, policy: DecodePolicy, _ decode: (_ strict: Bool) throws -> T
) throws -> (T, warning: String?) {
    do {
        return (try decode(true), nil)
    } catch let strictError as VipsError {
        guard policy.damage == .warn else {
            throw ImageInputError.damaged(file: data.name, detail: strictError.message)
        }
        do {
            let result = try decode(false)
            return (result, "\(data.name): damaged image data, rendered what decodes (\(strictError.message)).")
        } catch let error as VipsError {
            throw ImageInputError.damaged(file: data.name, detail: error.message)
        }
    }
}
