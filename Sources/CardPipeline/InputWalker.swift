import Foundation

/// One input file found on the command line or under a directory.
public struct InputItem: Sendable, Equatable {
    /// The path to read.
    public let path: String
    /// The path relative to the input it was found under (a file argument: its name),
    /// used to mirror the input tree in the output directory.
    public let relativePath: String

    public init(path: String, relativePath: String) {
        self.path = path
        self.relativePath = relativePath
    }
}

/// Expands file and directory arguments into the files to process.
public enum InputWalker {
    /// File extensions (lower case) taken from directories. A file named on the command
    /// line is always tried whatever its name: formats are recognised by content.
    public static let imageExtensions: Set<String> = [
        "jpg", "jpeg", "jpe", "png", "webp", "heic", "heif", "avif", "tif", "tiff", "gif",
    ]

    /// The result of a walk.
    public struct Walk: Sendable {
        /// Files to process, in a stable order (arguments in order, directories sorted).
        public var items: [InputItem] = []
        /// Files under directories that were skipped because they are not images by name.
        public var skipped: [String] = []
        /// Arguments that do not exist or cannot be read, as whole sentences.
        public var problems: [String] = []
    }

    /// Walks `inputs`: files are taken as they are, directories recursively (hidden files
    /// and folders skipped, symbolic links to folders not followed).
    public static func walk(_ inputs: [String]) -> Walk {
        var walk = Walk()
        let manager = FileManager.default
        for input in inputs {
            var isDirectory: ObjCBool = false
            guard manager.fileExists(atPath: input, isDirectory: &isDirectory) else {
                walk.problems.append("\(input): no such file or directory.")
                continue
            }
            guard isDirectory.boolValue else {
                walk.items.append(InputItem(path: input, relativePath: (input as NSString).lastPathComponent))
                continue
            }
            guard let enumerator = manager.enumerator(atPath: input) else {
                walk.problems.append("\(input): the directory cannot be read.")
                continue
            }
            var found: [String] = []
            while let relative = enumerator.nextObject() as? String {
                let name = (relative as NSString).lastPathComponent
                if name.hasPrefix(".") {
                    if enumerator.fileAttributes?[.type] as? FileAttributeType == .typeDirectory {
                        enumerator.skipDescendants()
                    }
                    continue
                }
                guard enumerator.fileAttributes?[.type] as? FileAttributeType == .typeRegular else { continue }
                if imageExtensions.contains((name as NSString).pathExtension.lowercased()) {
                    found.append(relative)
                } else {
                    walk.skipped.append((input as NSString).appendingPathComponent(relative))
                }
            }
            for relative in found.sorted() {
                walk.items.append(
                    InputItem(path: (input as NSString).appendingPathComponent(relative), relativePath: relative))
            }
        }
        return walk
    }
}
