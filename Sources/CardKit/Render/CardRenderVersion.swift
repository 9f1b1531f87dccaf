/// The cardrender release: part of every cache key, of reports and of `--version`.
public enum CardRenderVersion {
    /// The version string, e.g. `0.2.0`.
    public static let string = "0.4.0"
}
