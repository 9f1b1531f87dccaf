import VipsKit

/// Runs a render strictly, and again leniently when the policy allows damaged input.
///
/// libvips decodes lazily, so damaged pixel data only shows when the pipeline runs: a
/// `VipsError` from a strict run whose header was fine means the data is damaged.
/// - Parameters:
///   - data: the input, named in errors and warnings.
///   - policy: `.fail` turns the failure into `ImageInputError.damaged`; `.warn` retries
///     with `strict: false` and returns a warning with the result.
///   - render: builds and runs the pipeline.
/// - Returns: the result and, after a lenient retry, the warning to report.
func renderHandlingDamage<T>(
    _ data: ImageData, policy: DecodePolicy, _ render: (_ strict: Bool) throws -> T
) throws -> (T, warning: String?) {
    do {
        return (try render(true), nil)
    } catch let strictError as VipsError {
        guard policy.damage == .warn else {
            throw ImageInputError.damaged(file: data.name, detail: strictError.message)
        }
        do {
            let result = try render(false)
            return (result, "\(data.name): damaged image data, rendered what decodes (\(strictError.message)).")
        } catch let error as VipsError {
            throw ImageInputError.damaged(file: data.name, detail: error.message)
        }
    }
}
