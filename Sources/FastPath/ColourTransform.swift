internal import CColourTransform
import Dispatch
import Glibc
import ImageCore

/// An embedded RGB colour profile (Display P3, Adobe RGB, ...) to sRGB, 8 bits in and out,
/// by lcms2 (relative colorimetric, as libvips's `icc_transform`), made once per profile
/// per process and applied to decoded rows; or sRGB to a press's CMYK with its ink limit.
///
/// `@unchecked Sendable` is safe: the lcms2 transform is never changed after `init`, and it
/// is made without lcms2's one-pixel cache (`cmsFLAGS_NOCACHE`), which is what lcms2
/// documents as making one transform safe to apply from several threads at once.
public final class ColourTransform: @unchecked Sendable {
    private let transform: OpaquePointer

    /// A profile lcms2 cannot read, or one that is not RGB.
    public struct Failure: Error, Sendable, Equatable, CustomStringConvertible {
        /// lcms2's words, or ours.
        public let message: String
        public var description: String { message }
    }

    /// Makes the transform from `profile` (an ICC profile's bytes) to sRGB.
    /// - Throws: `Failure` when lcms2 cannot read the profile or it is not RGB.
    public init(toSRGBFrom profile: [UInt8]) throws(Failure) {
        var message = [CChar](repeating: 0, count: 200)
        guard
            let made = profile.withUnsafeBufferPointer({
                CColourTransform_make_to_srgb($0.baseAddress, $0.count, &message, message.count)
            })
        else {
            throw Failure(
                message: String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        transform = made
        inkLimit = nil
    }

    deinit {
        CColourTransform_free(transform)
    }

    /// Makes the transform from sRGB to a press's CMYK output profile (`profile`, an ICC
    /// profile's bytes such as `press/profiles/FOGRA39-TAC300.icc`), relative colorimetric
    /// with black point compensation, its total ink held at `inkLimit` percent (`cmyk(_:)`).
    /// - Throws: `Failure` when lcms2 cannot read the profile, it is not a CMYK output
    ///   profile, or the limit is not between 100 and 400 %.
    public init(fromSRGBToPress profile: [UInt8], inkLimit: Int) throws(Failure) {
        var message = [CChar](repeating: 0, count: 200)
        guard
            let made = profile.withUnsafeBufferPointer({
                CColourTransform_make_srgb_to_cmyk(
                    $0.baseAddress, $0.count, Int32(clamping: inkLimit), &message, message.count)
            })
        else {
            throw Failure(
                message: String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        transform = made
        self.inkLimit = inkLimit
    }

    /// The total ink limit in percent of a transform to a press's CMYK (nil: an RGB one).
    public let inkLimit: Int?

    /// `image` (sRGB) in the press's CMYK, 4 bytes a pixel (C, M, Y, K; 0 no ink, 255 full),
    /// no pixel's total ink above the limit. A large image is converted in parts on every
    /// core (lcms2's transform, made without its cache, may run on many threads at once):
    /// the separation was the largest single cost of a press postcard.
    public func cmyk(_ image: MemoryImage) -> [UInt8] {
        precondition(inkLimit != nil, "ColourTransform.cmyk: a transform made with init(fromSRGBToPress:inkLimit:)")
        let count = image.width * image.height
        let cores = max(1, sysconf(Int32(_SC_NPROCESSORS_ONLN)))
        let parts = max(1, min(cores, count / 250_000))
        return [UInt8](unsafeUninitializedCapacity: count * 4) { output, written in
            image.pixels.withUnsafeBufferPointer { input in
                // The buffers' addresses cross to the workers as integers: concurrentPerform
                // returns only when every part is done, while both buffers are alive, and the
                // parts read and write disjoint ranges.
                let (source, target) = (UInt(bitPattern: input.baseAddress!), UInt(bitPattern: output.baseAddress!))
                DispatchQueue.concurrentPerform(iterations: parts) { part in
                    let start = count * part / parts, end = count * (part + 1) / parts
                    CColourTransform_apply_cmyk(
                        self.transform, UnsafePointer<UInt8>(bitPattern: source)! + 3 * start,
                        UnsafeMutablePointer<UInt8>(bitPattern: target)! + 4 * start, end - start)
                }
            }
            written = count * 4
        }
    }

    /// The transform to a press's CMYK for `profile` and `inkLimit`, made on first use and
    /// kept for the process (a handful of press conditions; the 8 used last kept), made once
    /// however many renders ask for it at once.
    /// - Throws: as `init(fromSRGBToPress:inkLimit:)` (failures are not kept).
    public static func toPress(profile: [UInt8], inkLimit: Int) throws(Failure) -> ColourTransform {
        let key = profile + withUnsafeBytes(of: inkLimit.littleEndian) { Array($0) }
        return try madeForPress.value(for: key) { () throws(Failure) in
            try ColourTransform(fromSRGBToPress: profile, inkLimit: inkLimit)
        }
    }

    private static let madeForPress = BoundedMemory<[UInt8], ColourTransform>(capacity: 8)

    /// Converts `count` RGB pixels at `pixels` in place.
    public func apply(_ pixels: UnsafeMutablePointer<UInt8>, count: Int) {
        precondition(inkLimit == nil, "ColourTransform.apply: an RGB transform (a press's CMYK one is cmyk(_:))")
        CColourTransform_apply(transform, pixels, pixels, count)
    }

    /// Whether the transform runs on its own tables (both profiles matrix-shaper, as Display
    /// P3 and sRGB are: lcms2's per-pixel pipeline cost 23 % of a P3 card) rather than
    /// through lcms2.
    public var usesMatrixShaperTables: Bool { CColourTransform_is_matrix_shaper(transform) != 0 }

    /// `pixels` (RGB) converted by lcms2's own transform: the reference the tables are held to.
    public func convertedByLCMS2(_ pixels: [UInt8]) -> [UInt8] {
        var output = [UInt8](repeating: 0, count: pixels.count)
        pixels.withUnsafeBufferPointer { input in
            output.withUnsafeMutableBufferPointer {
                CColourTransform_apply_lcms2(transform, input.baseAddress!, $0.baseAddress!, pixels.count / 3)
            }
        }
        return output
    }

    /// Converts every pixel of `image` in place.
    public func apply(to image: inout MemoryImage) {
        let count = image.width * image.height
        image.pixels.withUnsafeMutableBufferPointer { apply($0.baseAddress!, count: count) }
    }

    /// The transform for `profile`, made on first use and kept for the process (photos come
    /// with a handful of profiles: phones' Display P3, cameras' Adobe RGB): the 32 used last
    /// are kept, so a stream of odd profiles cannot grow memory; made once however many
    /// decodes ask for it at once.
    /// - Throws: `Failure` as `init(toSRGBFrom:)` (failures are not kept).
    public static func toSRGB(from profile: [UInt8]) throws(Failure) -> ColourTransform {
        try made.value(for: profile) { () throws(Failure) in try ColourTransform(toSRGBFrom: profile) }
    }

    private static let made = BoundedMemory<[UInt8], ColourTransform>(capacity: 32)
}
