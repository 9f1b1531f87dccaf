import ArgumentParser
import Mail

/// `--posted-from`: the country of posting, as a code or a name `Country.resolve` reads.
enum PostedFrom {
    /// Refuses a country `Country.resolve` does not know, with its suggestions.
    static func validate(_ text: String) throws {
        do {
            _ = try Country.resolve(text)
        } catch {
            throw ValidationError("--posted-from: \(error)")
        }
    }

    /// The ISO alpha-2 code of a validated `--posted-from`.
    static func code(_ text: String) -> String { (try? Country.resolve(text).code) ?? "FR" }
}
