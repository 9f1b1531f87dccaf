import ArgumentParser

/// An age written as days or hours (`30d`, `12h`; a bare number is days): `--keep-events`.
struct KeptFor: ExpressibleByArgument, Sendable {
    let seconds: Int

    init(seconds: Int) { self.seconds = seconds }

    init?(argument: String) {
        let unit = argument.last.map { "dh".contains($0) ? $0 : "d" } ?? "d"
        let number = argument.last.map { "dh".contains($0) } == true ? argument.dropLast() : Substring(argument)
        guard let count = Int(number), (1...36_500 * 24).contains(count) else { return nil }
        seconds = count * (unit == "h" ? 3600 : 86_400)
        guard seconds <= 36_500 * 86_400 else { return nil }
    }

    var defaultValueDescription: String { seconds % 86_400 == 0 ? "\(seconds / 86_400)d" : "\(seconds / 3600)h" }
}
