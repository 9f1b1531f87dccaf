import Foundation
import TestSupport
import Testing
import ThumbServer

/// Signed URLs: HMAC-SHA256 of path and query, checked before anything else.
@Suite(.libvips) struct SigningTests {
    static let keyText = "0123456789abcdef0123456789abcdef"

    @Test func signedURLsAreServedAndAnythingElseIs403() async throws {
        let tree = try ServedTree.make()
        let key = try SigningKey(bytes: Array(Self.keyText.utf8))
        let signer = URLSigner(key: key)
        var configuration = ThumbConfiguration(root: tree.root)
        configuration.signingKey = key
        try await LiveServer.with(configuration) { server in
            let signed = signer.sign("/thumb/photos/quad.png?width=20")
            #expect(signed.hasPrefix("/thumb/photos/quad.png?width=20&sig="))
            let ok = try await server.request(signed)
            #expect(ok.status == 200)
            #expect(ok.header("Content-Type") == "image/png")

            let unsigned = try await server.request("/thumb/photos/quad.png?width=20")
            #expect(unsigned.status == 403)
            #expect(unsigned.text == "forbidden: signing is on and the URL has no sig parameter at the end.\n")
            let otherWidth = signed.replacingOccurrences(of: "width=20", with: "width=21")
            #expect(try await server.request(otherWidth).text == "forbidden: the signature does not match.\n")
            let otherFile = signed.replacingOccurrences(of: "quad.png", with: "alias.png")
            #expect(try await server.request(otherFile).status == 403)
            var flipped = Array(signed)
            flipped[flipped.count - 3] = flipped[flipped.count - 3] == "A" ? "B" : "A"
            #expect(try await server.request(String(flipped)).status == 403)
            #expect(try await server.request(signed + "x").status == 403)
            let garbage = try await server.request("/thumb/photos/quad.png?width=20&sig=%%%")
            #expect(garbage.text == "forbidden: the sig parameter is not a base64url HMAC-SHA256.\n")
            // The signature is checked first: a missing file does not answer 404 to an unsigned URL.
            #expect(try await server.request("/thumb/photos/missing.png?width=20").status == 403)
            #expect(try await server.request(signer.sign("/thumb/photos/missing.png?width=20")).status == 404)
            // A signed URL with a bad parameter is still a 400.
            #expect(try await server.request(signer.sign("/thumb/photos/quad.png?width=0")).status == 400)
        }
    }

    @Test func signingOffRefusesASigParameter() async throws {
        let tree = try ServedTree.make()
        try await LiveServer.with(ThumbConfiguration(root: tree.root)) { server in
            let reply = try await server.request("/thumb/photos/quad.png?width=20&sig=abc")
            #expect(reply.status == 400)
            #expect(reply.text.hasPrefix("sig: expected only the parameters width, height, fit"))
        }
    }

    @Test func shortKeysAreRefused() throws {
        let path = try Fixtures.scratchDirectory() + "/key"
        try Data("short\n".utf8).write(to: URL(fileURLWithPath: path))
        let error = #expect(throws: SigningKeyError.self) { try SigningKey(contentsOfFile: path) }
        #expect(error?.description == "\(path): not a usable signing key: it has 5 bytes; at least 16 are needed.")
    }

    /// `cardrender sign` prints what the server accepts.
    @Test func theSignCommandSignsForTheServer() async throws {
        let tree = try ServedTree.make()
        let keyFile = try Fixtures.scratchDirectory() + "/key"
        try Data((Self.keyText + "\n").utf8).write(to: URL(fileURLWithPath: keyFile))
        var configuration = ThumbConfiguration(root: tree.root)
        configuration.signingKey = try SigningKey(contentsOfFile: keyFile)
        try await LiveServer.with(configuration) { server in
            let absolute = "http://127.0.0.1:\(server.port)/thumb/photos/quad.png?width=16&format=webp"
            let run = try Tools.run(ServeProcess.binary, ["sign", absolute, "--signing-key-file", keyFile])
            #expect(run.status == 0, "\(run.stderr)")
            let url = run.stdoutText.trimmingCharacters(in: .whitespacesAndNewlines)
            #expect(url.hasPrefix(absolute + "&sig="))
            let target = String(url.dropFirst("http://127.0.0.1:\(server.port)".count))
            let reply = try await server.request(target)
            #expect(reply.status == 200)
            #expect(reply.header("Content-Type") == "image/webp")
        }
    }
}
