import Hummingbird
import ImageCore
import ServerShell
import Thumbnails

/// Why a `/thumb` request is refused: the one mapping from every failure to an HTTP status
/// and a body. Bodies name the parameter or the cause but never a file-system path or
/// libvips text (those go to the log).
public enum ThumbRequestError: Error, Sendable, Equatable {
    /// 400: a query parameter is missing, repeated, unknown or out of range.
    case badParameter(name: String, expected: String, received: String?)
    /// 403: signing is on and the signature is missing or wrong.
    case forbidden(reason: String)
    /// 404: no such file under the root, or a path that tries to leave it.
    case notFound
    /// 405: a method other than GET or HEAD.
    case methodNotAllowed
    /// 415: the file is not an image in an accepted format.
    case unsupportedMedia(reason: String)
    /// 422: the image is over the pixel or byte limit, or its data is damaged.
    case unprocessable(reason: String)
    /// 503: every worker is busy and the queue is full.
    case overloaded(retryAfter: Int)
    /// 502: the store the photos are in (an `s3://` root) did not answer.
    case sourceUnavailable(reason: String)
    /// 500: anything else (the cause is logged, not sent).
    case internalError

    /// The HTTP status.
    public var status: HTTPResponse.Status {
        switch self {
        case .badParameter: .badRequest
        case .forbidden: .forbidden
        case .notFound: .notFound
        case .methodNotAllowed: .methodNotAllowed
        case .unsupportedMedia: .unsupportedMediaType
        case .unprocessable: .unprocessableContent
        case .overloaded: .serviceUnavailable
        case .sourceUnavailable: .badGateway
        case .internalError: .internalServerError
        }
    }

    /// The body: one line of plain text.
    public var message: String {
        switch self {
        case .badParameter(let name, let expected, let received):
            return ThumbParameterError(name: name, expected: expected, received: received).message
        case .forbidden(let reason): return "forbidden: \(reason)."
        case .notFound: return PlainText.notFound
        case .methodNotAllowed: return PlainText.methodNotAllowed
        case .unsupportedMedia(let reason): return "unsupported image: \(reason)."
        case .unprocessable(let reason): return "image refused: \(reason)."
        case .overloaded(let seconds): return "overloaded: every worker is busy; retry in \(seconds) s."
        case .sourceUnavailable(let reason): return "unavailable: \(reason)."
        case .internalError: return "internal error (logged)."
        }
    }

    /// The refusal for anything thrown while serving: typed input errors map to 404/415/422,
    /// a full queue to 503, and whatever else to 500 (whose cause the caller logs).
    public static func from(_ error: any Error, retryAfter: Int) -> ThumbRequestError {
        switch error {
        case let error as ThumbRequestError:
            return error
        case let error as ThumbParameterError:
            return .badParameter(name: error.name, expected: error.expected, received: error.received)
        case is WorkPool.Overloaded:
            return .overloaded(retryAfter: retryAfter)
        case let error as ImageInputError:
            return from(error)
        case let error as ThumbnailError:
            switch error {
            case .widthOutOfRange(let received, let maximum):
                return .badParameter(
                    name: "width", expected: "a whole number from 1 to \(maximum)", received: String(received))
            case .boxTooLarge(let width, let height, let reason):
                return .badParameter(name: "dpr", expected: reason, received: "a \(width)x\(height) box")
            }
        default:
            return .internalError
        }
    }

    private static func from(_ error: ImageInputError) -> ThumbRequestError {
        switch error {
        case .unreadable, .notAFile:
            return .notFound
        case .empty:
            return .unsupportedMedia(reason: "the file is empty")
        case .unrecognised:
            return .unsupportedMedia(reason: "not an image in a known format")
        case .unsupportedFormat(_, let loader):
            return .unsupportedMedia(
                reason: "\(ImageFormatName.describe(loader: loader)) is not accepted; "
                    + "expected JPEG, PNG, WebP, HEIC/AVIF, TIFF or GIF")
        case .fileTooLarge(_, let bytes, let limit):
            return .unprocessable(reason: "the file is \(bytes) bytes, over the limit of \(limit) bytes")
        case .tooManyPixels(_, let width, let height, let limit):
            return .unprocessable(
                reason: "the image declares \(width)x\(height) = \(width * height) pixels, "
                    + "over the limit of \(limit) pixels")
        case .damaged:
            return .unprocessable(reason: "the image data is damaged and could not be decoded")
        }
    }

}
