import ArgumentParser
import ThumbServer

/// `cardrender sign`: prints a URL signed for a server started with `--signing-key-file`.
struct SignCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sign",
        abstract: "Sign a thumbnail URL for `cardrender serve --signing-key-file`.",
        discussion: """
            Appends sig = base64url(HMAC-SHA256(key, path?query)) as the last parameter. \
            The URL may be absolute (http://host:port/thumb/…) or a path (/thumb/…).
            """
    )

    @Argument(help: "The URL or path to sign, e.g. /thumb/photos/a.jpg?width=200.")
    var url: String

    @Option(help: ArgumentHelp("The key file the server uses.", valueName: "file"))
    var signingKeyFile: String

    func run() throws {
        let key: SigningKey
        do {
            key = try SigningKey(contentsOfFile: signingKeyFile)
        } catch {
            Console.error("cardrender: \(error)")
            throw ExitCode(64)
        }
        var origin = Substring("")
        var target = Substring(url)
        if let scheme = url.firstRange(of: "://") {
            let afterHost = url[scheme.upperBound...].firstIndex(of: "/") ?? url.endIndex
            origin = url[..<afterHost]
            target = url[afterHost...]
        }
        guard target.hasPrefix("/") else {
            Console.error("cardrender: \(url): expected a path starting with / or an http(s) URL.")
            throw ExitCode(64)
        }
        Console.out(String(origin) + URLSigner(key: key).sign(String(target)))
    }
}
