/// A run manifest that cannot be read: names the file, the line and the problem.
public struct RunManifestError: Error, Sendable, CustomStringConvertible {
    /// The manifest file.
    public let file: String
    /// The line (1: the header), when one line is at fault.
    public let line: Int?
    /// What is wrong, as words that follow the file's name.
    public let problem: String

    public var description: String {
        "\(file)\(line.map { ":\($0)" } ?? "") \(problem)."
    }
}
