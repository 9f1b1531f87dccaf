#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Finds the first number in a JSON text that no number here can hold (`1e400`, a 400-digit
/// integer), with the path of the field that holds it (`spec.transform.scale`,
/// `spec.recipients[1].x`), so that the refusal names the field.
///
/// Why our own: JSONSerialization refuses such a number with its text but no place, and
/// JSONDecoder's path for it is wrong inside arrays (the array is named, not the element).
/// One pass over the bytes with a stack of the containers entered; only called for a body
/// JSONSerialization has refused for a number, whose nesting it has already bounded.
enum JSONNumberScan {
    /// The field path and the number's text of the first number out of range, or nil.
    static func firstOutOfRange(in data: Data) -> (path: String, number: String)? {
        enum Frame {
            case object(key: String?)
            case array(index: Int)
        }
        let bytes = [UInt8](data)
        var stack: [Frame] = []
        var index = 0
        func path() -> String {
            stack.reduce("") { path, frame in
                switch frame {
                case .object(let key?): path.isEmpty ? key : path + "." + key
                case .object(nil): path
                case .array(let index): path + "[\(index)]"
                }
            }
        }
        while index < bytes.count, stack.count <= 1024 {
            switch bytes[index] {
            case UInt8(ascii: "{"): stack.append(.object(key: nil))
            case UInt8(ascii: "["): stack.append(.array(index: 0))
            case UInt8(ascii: "}"), UInt8(ascii: "]"): if !stack.isEmpty { stack.removeLast() }
            case UInt8(ascii: ","):
                switch stack.last {
                case .array(let count)?: stack[stack.count - 1] = .array(index: count + 1)
                case .object?: stack[stack.count - 1] = .object(key: nil)
                case nil: break
                }
            case UInt8(ascii: "\""):
                var end = index + 1
                while end < bytes.count, bytes[end] != UInt8(ascii: "\"") {
                    end += bytes[end] == UInt8(ascii: "\\") ? 2 : 1
                }
                guard end < bytes.count else { return nil }
                if case .object(nil)? = stack.last {
                    // A key: its text as JSON reads it (escapes decoded).
                    let key = (try? JSONDecoder().decode(String.self, from: Data(bytes[index...end]))) ?? "?"
                    stack[stack.count - 1] = .object(key: key)
                }
                index = end
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                var end = index
                while end < bytes.count, "0123456789+-.eE".utf8.contains(bytes[end]) { end += 1 }
                let text = String(decoding: bytes[index..<end], as: UTF8.self)
                if let value = Double(text), !value.isFinite { return (path(), text) }
                index = end - 1
            default: break
            }
            index += 1
        }
        return nil
    }
}
