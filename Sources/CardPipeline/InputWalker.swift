import SystemPackage

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
#if canImport(Glibc)
    import Glibc
#endif

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
        /// The path of each skipped file relative to the directory it was found under.
        public var relativePaths: [String: String] = [:]
    }

    /// Walks `inputs`: files are taken as they are, directories recursively (hidden files
    /// and folders skipped, symbolic links to folders not followed).
    public static func walk(_ inputs: [String]) -> Walk {
        var walk = Walk()
        for input in inputs {
            switch kind(of: input, followLinks: true) {
            case .none:
                walk.problems.append("\(input): no such file or directory.")
            case .file, .other:
                walk.items.append(InputItem(path: input, relativePath: FilePath(input).lastComponent?.string ?? input))
            case .directory:
                var found: [String] = []
                var skipped: [String] = []
                guard collect(directory: input, relative: "", into: &found, skipped: &skipped) else {
                    walk.problems.append("\(input): the directory cannot be read.")
                    continue
                }
                for relative in skipped.sorted() {
                    walk.skipped.append(join(input, relative))
                    walk.relativePaths[join(input, relative)] = relative
                }
                for relative in found.sorted() {
                    walk.items.append(InputItem(path: join(input, relative), relativePath: relative))
                }
            }
        }
        return walk
    }

    /// Adds image files under `directory/relative` to `found` and other files to `skipped`
    /// (both relative to `directory`); false if it cannot be listed.
    private static func collect(
        directory: String, relative: String, into found: inout [String], skipped: inout [String]
    ) -> Bool {
        let here = relative.isEmpty ? directory : join(directory, relative)
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: here) else { return false }
        for name in names where !name.hasPrefix(".") {
            let child = relative.isEmpty ? name : join(relative, name)
            switch kind(of: join(directory, child), followLinks: false) {
            case .directory:
                _ = collect(directory: directory, relative: child, into: &found, skipped: &skipped)
            case .file:
                if imageExtensions.contains((FilePath(name).extension ?? "").lowercased()) {
                    found.append(child)
                } else {
                    skipped.append(child)
                }
            case .none, .other:
                continue
            }
        }
        return true
    }

    private enum Kind { case none, file, directory, other }

    /// What is at `path`. A link to a file counts as a file; with `followLinks` false a
    /// link to a directory is `.other`, so walks never loop.
    private static func kind(of path: String, followLinks: Bool) -> Kind {
        var info = stat()
        guard lstat(path, &info) == 0 else { return .none }
        if (info.st_mode & S_IFMT) == S_IFLNK {
            guard stat(path, &info) == 0 else { return .none }
            if (info.st_mode & S_IFMT) == S_IFDIR && !followLinks { return .other }
        }
        switch info.st_mode & S_IFMT {
        case S_IFREG: return .file
        case S_IFDIR: return .directory
        default: return .other
        }
    }

    private static func join(_ base: String, _ relative: String) -> String {
        FilePath(base).appending(relative).string
    }
}
