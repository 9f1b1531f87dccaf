internal import CFaceDetector
import Glibc
import ImageCore

/// Frontal faces in a grey image, by OpenCV's Haar cascade (`CFaceDetector`, which opens
/// OpenCV on first use).
public struct FaceDetector: Sendable {
    /// OpenCV could not be opened, its cascade read, or the search failed.
    public struct Failure: Error, Sendable, CustomStringConvertible {
        public let description: String
    }

    /// OpenCV's Haar cascade `frontalface_alt2` (Debian's `opencv-data`): finds small faces
    /// (20 px), with some false ones in fine texture (a leaf's veins).
    public static let haarCascade = "/usr/share/opencv4/haarcascades/haarcascade_frontalface_alt2.xml"
    /// OpenCV's LBP cascade `frontalface_improved`: misses faces under about 45 px, and finds
    /// none of the Haar cascade's false ones on the corpus, so it confirms each at a larger size.
    public static let lbpCascade = "/usr/share/opencv4/lbpcascades/lbpcascade_frontalface_improved.xml"

    /// What the faces are searched with on this machine, for cache keys: the same photo
    /// placed with and without OpenCV (or its cascades) is not the same card.
    public static var availability: String {
        var error: UnsafePointer<CChar>?
        guard CFaceDetector_load(&error) == 0 else { return "no OpenCV" }
        var readable: [String] = []
        for cascade in [haarCascade, lbpCascade] where access(cascade, R_OK) == 0 {
            readable.append(String(cascade.split(separator: "/").last!))
        }
        return "OpenCV 4.6 (libopencv_objdetect.so.406), cascades " + readable.joined(separator: " ")
    }

    /// The cascade file read.
    public let cascade: String

    public init(cascade: String) {
        self.cascade = cascade
    }

    /// The faces in `grey` (8-bit, `width` x `height`, rows packed), at least `minimum` pixels
    /// across, each found by at least `neighbours` overlapping windows; at most 64.
    /// - Throws: `Failure` naming OpenCV or the cascade file and the cause.
    public func faces(in grey: [UInt8], width: Int, height: Int, minimum: Int, neighbours: Int) throws(Failure)
        -> [PixelRect]
    {
        precondition(grey.count == width * height, "FaceDetector.faces: width x height bytes")
        let capacity = 64
        var found = [CFaceDetector_Face](repeating: CFaceDetector_Face(), count: capacity)
        var error: UnsafePointer<CChar>?
        let count = grey.withUnsafeBufferPointer { pixels in
            found.withUnsafeMutableBufferPointer { faces in
                CFaceDetector_detect(
                    cascade, pixels.baseAddress, Int32(width), Int32(height), Int32(width), 1.1, Int32(neighbours),
                    Int32(minimum),
                    faces.baseAddress, Int32(capacity), &error)
            }
        }
        guard count >= 0 else { throw Failure(description: error.map { String(cString: $0) } ?? "OpenCV failed") }
        return found.prefix(min(Int(count), capacity)).map {
            PixelRect(x: Int($0.x), y: Int($0.y), width: Int($0.width), height: Int($0.height))
        }
    }
}
