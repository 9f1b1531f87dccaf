import ImageCore

/// A card that failed after its photo decoded: cardrender's own defect, never the photo's.
/// Only decoding blames the file (`ImageInputError`); placing, an effect, the frame blend or
/// an encoder failing is reported with the stage, so that a customer is never told a sound
/// photo is damaged and an operator knows where to look. The batch reports it and renders
/// the rest, then exits 70 (EX_SOFTWARE).
public struct CardRenderFailure: Error, Sendable, Equatable, CustomStringConvertible {
    /// Where in the pipeline it failed.
    public enum Stage: String, Sendable, Equatable {
        case placing = "placing the photo"
        case effect = "applying the colour effect"
        case blending = "blending the frame"
        case encoding = "encoding the outputs"
        case back = "drawing the back"
        case postal = "checking the back's postal zones"
    }

    /// The stage that failed.
    public var stage: Stage
    /// The photo (or spec) the card was made from.
    public var file: String
    /// What the failing library said.
    public var detail: String

    public init(stage: Stage, file: String, detail: String) {
        self.stage = stage
        self.file = file
        self.detail = detail
    }

    public var description: String {
        "\(file): cardrender failed while \(stage.rawValue) (\(detail)); the photo decoded and is not at fault: "
            + "this is a defect in cardrender, please report it with the card's spec."
    }

    /// `body`, with any error but the photo's or the spec's own made a failure of `stage`.
    static func during<T>(_ stage: Stage, file: String, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as CardRenderFailure {
            throw error
        } catch let error as ImageInputError {
            throw error
        } catch let error as CardSpecError {
            throw error
        } catch {
            throw CardRenderFailure(stage: stage, file: file, detail: "\(error)")
        }
    }
}
