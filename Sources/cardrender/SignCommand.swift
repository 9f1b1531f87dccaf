import ArgumentParser
import ThumbServer

#if canImport(Glibc)
    import Glibc
#endif

/// `cardrender sign`: prints a URL signed for a server started with `--signing-key-file`.
struct SignCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sign",
        abstract: "Sign a thumbnail URL for `cardrender serve --signing-key-file`.",
        discussion: """
            Appends sig = base64url(HMAC-SHA256(key, path?query)) as the last parameter. \
            The URL may be absolute (http://host:port/thumb/…) or a path (/thumb/…). \
            With --expires, exp=UNIX-TIME is added before the signature (so it is signed \
            too): the server answers 403 once that second has passed.
            """
    )

    @Argument(help: "The URL or path to sign, e.g. /thumb/photos/a.jpg?width=200.")
    var url: String

    @Option(help: ArgumentHelp("The key file the server uses.", valueName: "file"))
    var signingKeyFile: String

    @Option(help: ArgumentHelp("Seconds from now until the URL is refused (adds exp=).", valueName: "seconds"))
    var expires: Int?

    func validate() throws {
        if let expires, !(1...(10 * 365 * 86_400)).contains(expires) {
            throw ValidationError(
                "--expires must be from 1 to \(10 * 365 * 86_400) seconds (ten years); received \(expires).")
        }
        let query = url.split(separator: "?", maxSplits: 1).dropFirst().first ?? ""
        if expires != nil, query.split(separator: "&").contains(where: { $0.hasPrefix("exp=") }) {
            throw ValidationError("--expires: the URL has an exp parameter already.")
        }
    }

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
        if let expires {
            target += (target.contains("?") ? "&" : "?") + "exp=\(Int(time(nil)) + expires)"
        }
        Console.out(String(origin) + URLSigner(key: key).sign(String(target)))
    }
}
