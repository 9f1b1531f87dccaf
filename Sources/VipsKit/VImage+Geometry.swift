internal import CVips
internal import CVipsShim
import ImageCore

extension VImage {
    /// The rectangle at (`left`, `top`) of `width` x `height` pixels.
    /// libvips: `vips_extract_area`.
    public func extractArea(left: Int, top: Int, width: Int, height: Int) throws(VipsError) -> VImage {
        try derive("extract_area") {
            CVipsShim_extract_area($0, $1, Int32(left), Int32(top), Int32(width), Int32(height))
        }
    }

    /// Places this image at (`x`, `y`), which may be negative, on a `width` x `height`
    /// canvas of `background` (one value per band); what falls outside is cut off.
    /// libvips: `vips_embed` with `extend=background`.
    public func embedded(x: Int, y: Int, width: Int, height: Int, background: [Double]) throws(VipsError) -> VImage {
        try derive("embed") { input, output in
            background.withUnsafeBufferPointer {
                CVipsShim_embed(
                    input, output, Int32(x), Int32(y), Int32(width), Int32(height), VIPS_EXTEND_BACKGROUND,
                    $0.baseAddress, Int32($0.count))
            }
        }
    }

    /// Grows the canvas by `margin` pixels on every side, repeating the edge pixels (print bleed).
    /// libvips: `vips_embed` with `extend=copy`.
    public func extendedByCopy(margin: Int) throws(VipsError) -> VImage {
        guard margin > 0 else { return self }
        let (newWidth, newHeight) = (width + 2 * margin, height + 2 * margin)
        return try derive("embed") { input, output in
            CVipsShim_embed(
                input, output, Int32(margin), Int32(margin), Int32(newWidth), Int32(newHeight), VIPS_EXTEND_COPY,
                nil, 0)
        }
    }

    /// Rotates by `degrees` clockwise about the centre. Whole quarter turns are exact (no
    /// interpolation, the size swapped); other angles grow the bounding box to hold the
    /// whole image, new pixels are `background`, bilinear interpolation.
    /// libvips: `vips_rot` for quarter turns, `vips_rotate` otherwise.
    public func rotated(degrees: Double, background: [Double]) throws(VipsError) -> VImage {
        let turn = degrees.truncatingRemainder(dividingBy: 360)
        if turn.truncatingRemainder(dividingBy: 90) == 0 {
            // A whole number of quarter turns: exact, no interpolation, no border.
            let quarters = (Int(turn / 90) % 4 + 4) % 4
            guard quarters != 0 else { return self }
            let angle: VipsAngle = quarters == 1 ? VIPS_ANGLE_D90 : quarters == 2 ? VIPS_ANGLE_D180 : VIPS_ANGLE_D270
            return try derive("rot") { CVipsShim_rot($0, $1, angle) }
        }
        return try derive("rotate") { input, output in
            background.withUnsafeBufferPointer {
                CVipsShim_rotate(input, output, degrees, $0.baseAddress, Int32($0.count))
            }
        }
    }

    /// `colour` laid over this image where `mask` says (0 keeps this image, 255 takes
    /// `colour`, between blends): "over" for an unpremultiplied 8-bit overlay, computed in
    /// 8-bit integers (libvips's `composite2` works in float and was slower for cards).
    /// libvips: `vips_ifthenelse` with `blend`.
    public func blended(with colour: VImage, mask: VImage) throws(VipsError) -> VImage {
        try mask.withPointer { (condition) throws(VipsError) in
            try colour.withPointer { (top) throws(VipsError) in
                try derive("ifthenelse") { CVipsShim_ifthenelse_blend(condition, top, $0, $1) }
            }
        }
    }

    /// The pixels copied into memory, so several outputs read them without recomputing.
    /// libvips: `vips_image_copy_memory`.
    public func inMemory() throws(VipsError) -> VImage {
        let copy = withPointer { vips_image_copy_memory($0) }
        guard let copy else { throw takeVipsError("image_copy_memory", file: origin) }
        return VImage(owning: copy, origin: origin)
    }

    /// The same pixels with resolution metadata of `dotsPerInch` (JPEG JFIF density, TIFF).
    /// libvips: `vips_copy` with `xres`/`yres` (pixels per millimetre).
    public func withResolution(dotsPerInch: Double) throws(VipsError) -> VImage {
        let perMillimetre = dotsPerInch / 25.4
        return try derive("copy") { CVipsShim_copy_resolution($0, $1, perMillimetre, perMillimetre) }
    }

    /// Renders trusted SVG (our own frame art, never user input) at `scale`, into memory.
    ///
    /// The SVG loader is one of libvips's untrusted loaders; cardrender unblocks it at
    /// start-up for this call only, and untrusted input never reaches it because inputs
    /// are identified by content and SVG is not an accepted `InputFormat`.
    /// libvips: `vips_svgload_buffer`.
    public static func trustedSVG(_ svg: ImageData, scale: Double) throws(VipsError) -> VImage {
        try Vips.requireLoaded()
        // libvips reads the bytes lazily, so the pixels are computed (into memory) while
        // the buffer is still lent to us.
        return try svg.withUnsafeBytes { (raw) throws(VipsError) -> VImage in
            var output: UnsafeMutablePointer<VipsImage>?
            try vipsCall("svgload_buffer", file: svg.name) {
                CVipsShim_svgload_buffer(UnsafeMutableRawPointer(mutating: raw.baseAddress), raw.count, &output, scale)
            }
            guard let output else { throw takeVipsError("svgload_buffer", file: svg.name) }
            return try VImage(owning: output, origin: svg.name).inMemory()
        }
    }
}

extension VImage {
    /// Exactly `width` x `height`: cut at the right and bottom, or grown there by
    /// repeating the edge (resizes may round a pixel off).
    /// libvips: `vips_embed` with `extend=copy`.
    public func exactly(width: Int, height: Int) throws(VipsError) -> VImage {
        guard self.width != width || self.height != height else { return self }
        return try derive("embed") { input, output in
            CVipsShim_embed(input, output, 0, 0, Int32(width), Int32(height), VIPS_EXTEND_COPY, nil, 0)
        }
    }
}

extension VImage {
    /// How `transformed` reads between pixels.
    public enum Interpolation: Sendable {
        /// Bicubic: for enlarging.
        case bicubic
        /// Bilinear: for turning at the same scale (what libvips's `rotate` uses).
        case bilinear
    }

    /// The box `area` (left, top, width, height) of this image transformed by the matrix
    /// (`a`, `b`, `c`, `d`): output = matrix x (input + `inputOffset`) + `outputOffset`,
    /// pixel centres at whole coordinates. Only that box is computed, and only the input it
    /// reads is asked of the image before (a window of a photo enlarged twentyfold costs the
    /// window). Outside the input: `background`, or the nearest edge pixel when nil.
    /// libvips: `vips_affine` with `oarea`, `idx`, `idy`, `odx`, `ody`.
    public func transformed(
        matrix: (a: Double, b: Double, c: Double, d: Double), inputOffset: (x: Double, y: Double),
        outputOffset: (x: Double, y: Double), area: (left: Int, top: Int, width: Int, height: Int),
        interpolation: Interpolation, background: [Double]?
    ) throws(VipsError) -> VImage {
        let values = [matrix.a, matrix.b, matrix.c, matrix.d]
        let box = [Int32(area.left), Int32(area.top), Int32(area.width), Int32(area.height)]
        return try derive("affine") { input, output in
            values.withUnsafeBufferPointer { values in
                box.withUnsafeBufferPointer { box in
                    if let background {
                        background.withUnsafeBufferPointer {
                            CVipsShim_affine_area(
                                input, output, values.baseAddress, inputOffset.x, inputOffset.y, outputOffset.x,
                                outputOffset.y, box.baseAddress, interpolation == .bicubic ? 1 : 0, $0.baseAddress,
                                Int32($0.count))
                        }
                    } else {
                        CVipsShim_affine_area(
                            input, output, values.baseAddress, inputOffset.x, inputOffset.y, outputOffset.x,
                            outputOffset.y, box.baseAddress, interpolation == .bicubic ? 1 : 0, nil, 0)
                    }
                }
            }
        }
    }
}
