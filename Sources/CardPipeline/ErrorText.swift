import CardKit
import FileUtilities
import ImageCore
import RenderCache
import VipsKit

/// Errors as the one line a person reads: it names the file and the cause, whatever layer
/// the error came from. The batches, the commands and the reports all use this one function.
public enum ErrorText {
    /// `error` as one sentence naming `file` when the error does not name one itself.
    public static func describe(_ error: any Error, file: String) -> String {
        switch error {
        case let error as ImageInputError: return error.description
        case let error as CardSpecError: return error.description
        case let error as CardRenderFailure: return error.description
        case let error as VipsError: return error.file == nil ? "\(file): \(error)" : error.description
        case let error as AtomicFile.WriteError: return error.description
        case let error as FrameCatalogueError: return error.description
        case let error as CacheError: return error.description
        case let error as CustomStringConvertible: return "\(file): \(error.description)"
        default: return "\(file): \(error)"
        }
    }
}
