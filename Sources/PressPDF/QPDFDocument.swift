internal import CInflate
internal import CLazyLibraries
internal import CQPDF

/// A PDF document in libqpdf, built from scratch or read from bytes: the one Swift face of
/// libqpdf's C API (Debian `libqpdf-dev`, Apache-2.0), opened on first use.
///
/// Why libqpdf and not a PDF writer of our own: the cross-reference table, object numbering,
/// string and name escaping, stream lengths, the `/ID` and the reading of PDFs other
/// programs wrote (preflight) are where hand-written PDF code breaks; qpdf is the reference
/// tool print shops' own checks are run with.
///
/// Objects are made from PDF syntax (`object("<< /Type /Page >>")`), which qpdf parses, so
/// the page structure reads as the PDF it becomes. A document belongs to one thread at a
/// time (libqpdf's rule); it is not `Sendable`.
public final class QPDFDocument {
    /// What libqpdf said when it failed.
    public struct Failure: Error, Sendable, CustomStringConvertible {
        public let message: String
        public var description: String { message }
    }

    /// An object of this document (valid only with the document that made it).
    public struct Object: Hashable {
        fileprivate let handle: qpdf_oh
    }

    private var qpdf: qpdf_data?
    /// The bytes of a document read from memory: libqpdf reads them lazily (each object when
    /// first asked for) and does not copy them, so the document owns a copy of its own until
    /// `qpdf_cleanup` has run. nil for a document built here.
    private let source: UnsafeMutableBufferPointer<CChar>?
    /// The warnings libqpdf gave while reading (damage it repaired), in order.
    public private(set) var warnings: [String] = []

    /// An empty document, to build a PDF in.
    /// - Throws: `Failure`.
    public init() throws(Failure) {
        source = nil
        try Self.requireLibrary()
        qpdf = qpdf_init()
        qpdf_silence_errors(qpdf)
        qpdf_set_suppress_warnings(qpdf, QPDF_TRUE)
        _ = qpdf_empty_pdf(qpdf)
        try check("an empty PDF")
    }

    /// The PDF in `bytes`; `name` is used in messages.
    /// - Throws: `Failure` when qpdf cannot read it even with repair.
    public init(reading bytes: [UInt8], name: String) throws(Failure) {
        // libqpdf is opened (or its failure thrown) before any of its functions is called.
        try Self.requireLibrary()
        qpdf = qpdf_init()
        qpdf_silence_errors(qpdf)
        qpdf_set_suppress_warnings(qpdf, QPDF_TRUE)
        let source = UnsafeMutableBufferPointer<CChar>.allocate(capacity: max(1, bytes.count))
        _ = bytes.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { source.initialize(fromContentsOf: $0) }
        }
        self.source = source
        qpdf_read_memory(qpdf, name, source.baseAddress, UInt64(bytes.count), nil)
        try check("reading \(name)")
        collectWarnings()
    }

    /// Opens libqpdf on first use.
    /// - Throws: `Failure` naming the library, or the function missing, and the cause.
    private static func requireLibrary() throws(Failure) {
        var error: UnsafePointer<CChar>?
        guard CLazyLibraries_load(CLazyLibraries_qpdf, &error) == 0 else {
            throw Failure(message: error.map { String(cString: $0) } ?? "libqpdf could not be loaded")
        }
    }

    deinit {
        qpdf_cleanup(&qpdf)
        source?.deallocate()
    }

    // MARK: building

    /// A direct object parsed from PDF syntax.
    /// - Throws: `Failure` for text that is not one PDF object.
    public func object(_ syntax: String) throws(Failure) -> Object {
        let handle = qpdf_oh_parse(qpdf, syntax)
        try check("parsing \(syntax.prefix(60))")
        return Object(handle: handle)
    }

    /// An indirect object parsed from PDF syntax (what other objects refer to).
    public func indirect(_ syntax: String) throws(Failure) -> Object {
        let made = Object(handle: qpdf_make_indirect_object(qpdf, try object(syntax).handle))
        try check("making an indirect object")
        return made
    }

    /// An indirect stream of `data`, already encoded with `filter` (nil: raw, which the
    /// writer compresses), its dictionary given the `entries` (keys with their slash).
    public func stream(_ data: [UInt8], filter: String? = nil, entries: [(String, Object)] = []) throws(Failure)
        -> Object
    {
        let stream = qpdf_oh_new_stream(qpdf)
        let filterObject = try object(filter.map { "/" + $0 } ?? "null")
        let parameters = try object("null")
        data.withUnsafeBufferPointer { buffer in
            qpdf_oh_replace_stream_data(
                qpdf, stream, buffer.baseAddress, buffer.count, filterObject.handle, parameters.handle)
        }
        let dictionary = qpdf_oh_get_dict(qpdf, stream)
        for (key, value) in entries { qpdf_oh_replace_key(qpdf, dictionary, key, value.handle) }
        try check("making a stream")
        return Object(handle: stream)
    }

    /// A direct array of `items`.
    public func array(_ items: [Object]) throws(Failure) -> Object {
        let array = qpdf_oh_new_array(qpdf)
        for item in items { qpdf_oh_append_item(qpdf, array, item.handle) }
        try check("making an array")
        return Object(handle: array)
    }

    /// A copy in this document of `object` from `other` with everything it refers to
    /// (a page's resources, an output intent), as an indirect object. libqpdf reads the
    /// copied streams' data from `other` when this document is written: keep `other` alive
    /// until then (`withExtendedLifetime`).
    /// - Throws: `Failure`.
    public func copy(_ object: Object, from other: QPDFDocument) throws(Failure) -> Object {
        if qpdf_oh_is_indirect(other.qpdf, object.handle) == QPDF_TRUE {
            let copied = qpdf_oh_copy_foreign_object(qpdf, other.qpdf, object.handle)
            // libqpdf records a failure on the document the object came from.
            try other.check("copying an object from another PDF")
            try check("copying an object from another PDF")
            return Object(handle: copied)
        }
        // libqpdf copies only indirect objects: a direct dictionary or array is rebuilt here,
        // its indirect members copied, its scalars parsed from their syntax.
        if qpdf_oh_is_dictionary(other.qpdf, object.handle) == QPDF_TRUE {
            let dictionary = try self.object("<< >>")
            for key in other.keys(object) {
                if let value = other.value(key, in: object) {
                    try set(key, of: dictionary, to: try copy(value, from: other))
                }
            }
            return dictionary
        }
        if let items = other.items(object) {
            var copies: [Object] = []
            for item in items { copies.append(try copy(item, from: other)) }
            return try array(copies)
        }
        return try self.object(other.unparse(object))
    }

    /// Sets `key` (with its slash) of the dictionary `object` to `value`.
    public func set(_ key: String, of object: Object, to value: Object) throws(Failure) {
        qpdf_oh_replace_key(qpdf, object.handle, key, value.handle)
        try check("setting \(key)")
    }

    /// Appends a page to the page tree: `entries` of its dictionary in PDF syntax (its
    /// boxes), the XObjects its content draws by name (with their slash), and the content.
    /// - Throws: `Failure`.
    public func addPage(_ entries: String, xObjects: [(String, Object)], content: String) throws(Failure) {
        let page = try indirect("<< /Type /Page \(entries) >>")
        let objects = try object("<< >>")
        for (name, value) in xObjects { try set(name, of: objects, to: value) }
        let resources = try object("<< >>")
        try set("/XObject", of: resources, to: objects)
        try set("/Resources", of: page, to: resources)
        try set("/Contents", of: page, to: try stream(Array(content.utf8)))
        _ = qpdf_add_page(qpdf, qpdf, page.handle, QPDF_FALSE)
        try check("adding a page")
    }

    /// The catalog.
    public var root: Object { Object(handle: qpdf_get_root(qpdf)) }
    /// The trailer dictionary (`/Info`, `/ID`).
    public var trailer: Object { Object(handle: qpdf_get_trailer(qpdf)) }

    /// The document as PDF `version` ("1.3", "1.6"): streams compressed, no object streams
    /// (PDF/X-1a's PDF 1.3 and 1.4 have none), the `/ID` computed from the content, so the
    /// same document always gives the same bytes.
    /// - Throws: `Failure`.
    public func write(version: String) throws(Failure) -> [UInt8] {
        _ = qpdf_init_write_memory(qpdf)
        qpdf_set_object_stream_mode(qpdf, qpdf_o_disable)
        qpdf_set_compress_streams(qpdf, QPDF_TRUE)
        qpdf_force_pdf_version(qpdf, version)
        qpdf_set_deterministic_ID(qpdf, QPDF_TRUE)
        _ = qpdf_write(qpdf)
        try check("writing the PDF")
        guard let buffer = qpdf_get_buffer(qpdf) else { throw Failure(message: "qpdf wrote nothing") }
        return [UInt8](UnsafeBufferPointer(start: buffer, count: qpdf_get_buffer_length(qpdf)))
    }

    // MARK: reading

    /// The number of pages.
    public var pageCount: Int { max(0, Int(qpdf_get_num_pages(qpdf))) }

    /// Page `index` (from 0).
    public func page(_ index: Int) -> Object { Object(handle: qpdf_get_page_n(qpdf, index)) }

    /// The value of `key` (with its slash) in a dictionary or a stream's dictionary, or nil
    /// when absent or null.
    public func value(_ key: String, in object: Object) -> Object? {
        let dictionary =
            qpdf_oh_is_stream(qpdf, object.handle) == QPDF_TRUE ? qpdf_oh_get_dict(qpdf, object.handle) : object.handle
        guard qpdf_oh_is_dictionary(qpdf, dictionary) == QPDF_TRUE else { return nil }
        let value = qpdf_oh_get_key(qpdf, dictionary, key)
        return unparse(Object(handle: value)) == "null" ? nil : Object(handle: value)
    }

    /// The items of an array (nil when `object` is not one).
    public func items(_ object: Object) -> [Object]? {
        guard qpdf_oh_is_array(qpdf, object.handle) == QPDF_TRUE else { return nil }
        return (0..<qpdf_oh_get_array_n_items(qpdf, object.handle)).map {
            Object(handle: qpdf_oh_get_array_item(qpdf, object.handle, $0))
        }
    }

    /// The keys of a dictionary (with their slashes), or of a stream's dictionary.
    public func keys(_ object: Object) -> [String] {
        let dictionary =
            qpdf_oh_is_stream(qpdf, object.handle) == QPDF_TRUE ? qpdf_oh_get_dict(qpdf, object.handle) : object.handle
        guard qpdf_oh_is_dictionary(qpdf, dictionary) == QPDF_TRUE else { return [] }
        var keys: [String] = []
        qpdf_oh_begin_dict_key_iter(qpdf, dictionary)
        while qpdf_oh_dict_more_keys(qpdf) == QPDF_TRUE {
            keys.append(String(cString: qpdf_oh_dict_next_key(qpdf)))
        }
        return keys
    }

    /// A number's value (nil when `object` is not a number).
    public func number(_ object: Object) -> Double? {
        qpdf_oh_is_number(qpdf, object.handle) == QPDF_TRUE ? qpdf_oh_get_numeric_value(qpdf, object.handle) : nil
    }

    /// A name without its slash (nil when `object` is not a name).
    public func name(_ object: Object) -> String? {
        guard qpdf_oh_is_name(qpdf, object.handle) == QPDF_TRUE else { return nil }
        return String(String(cString: qpdf_oh_get_name(qpdf, object.handle)).dropFirst())
    }

    /// A string's text (nil when `object` is not a string).
    public func string(_ object: Object) -> String? {
        guard qpdf_oh_is_string(qpdf, object.handle) == QPDF_TRUE else { return nil }
        return String(cString: qpdf_oh_get_utf8_value(qpdf, object.handle))
    }

    /// Whether `object` is a stream.
    public func isStream(_ object: Object) -> Bool { qpdf_oh_is_stream(qpdf, object.handle) == QPDF_TRUE }

    /// Most bytes one stream of a document may decode to (`data(of:limit:)`'s default): a
    /// postcard's richest content stream, a message of CJK glyph outlines, is ~100 KB.
    public static let maxDecodedStream = 64 << 20

    /// The standard abbreviations of filter names (PDF 1.7, section 8.9.7, inline images),
    /// which libqpdf and Ghostscript honour in any stream: canonicalised before anything
    /// reads a stream, so that `/Fl` is checked as `/FlateDecode` is.
    public static let filterAbbreviations = [
        "Fl": "FlateDecode", "AHx": "ASCIIHexDecode", "A85": "ASCII85Decode", "LZW": "LZWDecode",
        "RL": "RunLengthDecode", "CCF": "CCITTFaxDecode", "DCT": "DCTDecode",
    ]

    /// A stream's filters in order, each by its full name (`/Fl` is `FlateDecode`), in an
    /// array or alone.
    public func filters(of stream: Object) -> [String] {
        let names: [String] =
            value("/Filter", in: stream).map { filter in
                name(filter).map { [$0] } ?? (items(filter) ?? []).map { name($0) ?? "(not a name)" }
            } ?? []
        return names.map { Self.filterAbbreviations[$0] ?? $0 }
    }

    /// A stream's data with libqpdf's general-purpose filters (Flate, LZW, ASCII85,
    /// ASCIIHex, under their full or abbreviated names) undone. Any filter left after them
    /// must be one the caller decodes itself (`keeping`, such as an image's `DCTDecode`),
    /// else the stream is refused: a content stream under a filter nobody here undoes
    /// (`/RunLengthDecode`, an unknown name) would otherwise be read as its encoded bytes
    /// and pass unchecked.
    ///
    /// libqpdf decodes into memory with no limit, so the decoded size is bounded first: a
    /// Flate stream's length is counted by inflating with the output thrown away
    /// (`CInflate`), the other filters by the most they can expand. A stream that may
    /// decode to more than `limit` bytes is refused, never decoded.
    /// - Throws: `Failure` when the data cannot be read or decoded, may exceed `limit`, or
    ///   keeps a filter the caller does not decode.
    public func data(
        of stream: Object, limit: Int = QPDFDocument.maxDecodedStream, keeping: Set<String> = []
    ) throws(Failure) -> [UInt8] {
        let raw = try streamData(stream, level: qpdf_dl_none)
        let filters = filters(of: stream)
        let generalPurpose: Set = ["FlateDecode", "LZWDecode", "ASCII85Decode", "ASCIIHexDecode"]
        let undone = filters.prefix { generalPurpose.contains($0) }
        if let left = filters.dropFirst(undone.count).first(where: { !keeping.contains($0) }) {
            throw Failure(message: "a stream filtered by /\(left), which is not decoded here")
        }
        guard !undone.isEmpty else {
            // Nothing libqpdf would undo: the stored bytes (an image's JPEG, say).
            guard raw.count <= limit else { throw Failure(message: "a stream of \(raw.count) bytes, over \(limit)") }
            return raw
        }
        // The most the general-purpose filters (undone here by libqpdf, in order) can make.
        var bound = Double(raw.count)
        for (index, filter) in undone.enumerated() {
            switch filter {
            case "FlateDecode" where index == 0:
                bound = Double(
                    raw.withUnsafeBufferPointer { CInflate_inflated_length($0.baseAddress, $0.count, limit) })
            case "FlateDecode": bound *= 1032  // deflate's largest ratio
            case "LZWDecode": bound *= 3641  // a 9-bit code can stand for 4,096 bytes
            default: continue  // ASCII85 and ASCIIHex shrink
            }
        }
        guard bound <= Double(limit) else {
            throw Failure(
                message: "a stream of \(raw.count) bytes (\(filters.joined(separator: ", "))) may decode to more "
                    + "than \(limit) bytes: not decoded")
        }
        let decoded = try streamData(stream, level: qpdf_dl_generalized)
        guard decoded.count <= limit else {
            throw Failure(message: "a stream decoded to \(decoded.count) bytes, over \(limit)")
        }
        return decoded
    }

    /// A page's content streams decoded and joined (a token never spans two of them), within
    /// `limit` bytes in all.
    /// - Throws: `Failure` when one cannot be read or decoded, or they exceed `limit`.
    public func contents(of page: Object, limit: Int = QPDFDocument.maxDecodedStream) throws(Failure) -> [UInt8] {
        guard let contents = value("/Contents", in: page) else { return [] }
        let streams = isStream(contents) ? [contents] : (items(contents) ?? []).filter(isStream)
        var joined: [UInt8] = []
        for stream in streams {
            joined += try data(of: stream, limit: max(0, limit - joined.count))
            joined.append(0x0A)
        }
        return joined
    }

    private func streamData(_ stream: Object, level: qpdf_stream_decode_level_e) throws(Failure) -> [UInt8] {
        var buffer: UnsafeMutablePointer<UInt8>?
        var length = 0
        var filtered: QPDF_BOOL = QPDF_FALSE
        _ = qpdf_oh_get_stream_data(qpdf, stream.handle, level, &filtered, &buffer, &length)
        defer { free(buffer) }
        try check("reading a stream")
        guard let buffer else { return [] }
        return [UInt8](UnsafeBufferPointer(start: buffer, count: length))
    }

    /// `object` in PDF syntax (references as `N 0 R`).
    public func unparse(_ object: Object) -> String { String(cString: qpdf_oh_unparse(qpdf, object.handle)) }

    // MARK: errors

    /// Throws libqpdf's error of the last call, if any, saying what was being done.
    fileprivate func check(_ doing: String) throws(Failure) {
        guard qpdf_has_error(qpdf) == QPDF_TRUE else { return }
        let error = qpdf_get_error(qpdf)
        let text = error.map { String(cString: qpdf_get_error_full_text(qpdf, $0)) } ?? "unknown error"
        throw Failure(message: "\(doing): \(text)")
    }

    private func collectWarnings() {
        while qpdf_more_warnings(qpdf) == QPDF_TRUE {
            if let warning = qpdf_next_warning(qpdf) {
                warnings.append(String(cString: qpdf_get_error_full_text(qpdf, warning)))
            }
        }
    }
}
