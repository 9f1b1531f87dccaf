import CardKit
import Crypto
import RenderCache
import SystemPackage

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
#if canImport(Glibc)
    import Glibc
#endif

/// The font files a card's back may be drawn with, as one value for its cache key: a new
/// font file, or another version of one, gives another key. The four message fonts by the
/// digest of their bytes; the fallback fonts fontconfig may pick for other scripts and emoji
/// (any installed font) by each file's path, size and modification time, which costs a walk
/// of the font folders once per process instead of reading hundreds of megabytes of fonts.
enum MessageFonts {
    /// The folders Debian's fontconfig reads (`/etc/fonts/fonts.conf`), for the system.
    static let folders = ["/usr/share/fonts", "/usr/local/share/fonts"]

    /// The fallback fonts' stamp, made once per process.
    static let installed: String = {
        var lines: [String] = []
        for folder in folders { stamps(under: folder, into: &lines) }
        let digest = SHA256.hash(data: Data(lines.sorted().joined(separator: "\n").utf8))
        return digest.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
    }()

    /// The message fonts' digests and the installed fonts' stamp.
    /// - Throws: `CacheError.unreadable` naming a message font that cannot be read.
    static func fingerprint(memo: DigestMemo) throws(CacheError) -> String {
        var parts: [String] = []
        for font in CardMessage.Font.allCases {
            parts.append("\(font.rawValue) \(try memo.digest(ofFile: font.file))")
        }
        return (parts + ["installed \(installed)"]).joined(separator: " ")
    }

    /// `path size mtime` of every file under `folder`, recursively (links followed to their
    /// targets' stamps; a link to a folder is walked).
    private static func stamps(under folder: String, into lines: inout [String]) {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder) else { return }
        for name in names {
            let path = folder + "/" + name
            var info = stat()
            guard stat(path, &info) == 0 else { continue }  // a link: its target's size and time
            switch info.st_mode & S_IFMT {
            case S_IFDIR: stamps(under: path, into: &lines)
            case S_IFREG:
                lines.append("\(path) \(info.st_size) \(info.st_mtim.tv_sec).\(info.st_mtim.tv_nsec)")
            default: continue
            }
        }
    }
}
