/// The cardrender release, part of every cache key and of `--version`.
enum CardRenderVersion {
    static let string = "0.1.0"
}
