import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// HTTP dates (RFC 9110 §5.6.7), always in GMT: written as IMF-fixdate, read in all three formats.
package enum HTTPDate {
    private static let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// The current date, made once per second (a `Date` header for every answer).
    package static func now() -> String {
        let second = Int(time(nil))
        if let text = current.withLock({ $0.second == second ? $0.text : nil }) { return text }
        let text = format(second)
        current.withLock { $0 = (second, text) }
        return text
    }
    private static let current = Mutex<(second: Int, text: String)>((-1, ""))

    /// The date of `seconds` since 1970.
    package static func format(_ seconds: Int) -> String {
        var time = time_t(seconds)
        var parts = tm()
        gmtime_r(&time, &parts)
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(days[Int(parts.tm_wday)]), \(two(parts.tm_mday)) \(months[Int(parts.tm_mon)]) "
            + "\(parts.tm_year + 1900) \(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec)) GMT"
    }

    /// Seconds since 1970 of an HTTP date in any of the three formats RFC 9110 §5.6.7 says
    /// a recipient must accept, or nil for anything else:
    /// - IMF-fixdate `Sun, 06 Nov 1994 08:49:37 GMT` (what senders must send);
    /// - obsolete RFC 850 `Sunday, 06-Nov-94 08:49:37 GMT` (a two-digit year more than 50
    ///   years ahead is taken as the most recent past year with those digits);
    /// - obsolete asctime `Sun Nov  6 08:49:37 1994`.
    package static func parse(_ text: String, now: Int = Int(time(nil))) -> Int? {
        let fields = text.split(separator: " ")
        switch fields.count {
        case 6 where fields[5] == "GMT" && fields[0].hasSuffix(","):
            guard fields[1].count == 2, let day = Int(fields[1]), let month = months.firstIndex(of: String(fields[2])),
                fields[3].count == 4, let year = Int(fields[3])
            else { return nil }
            return seconds(year: year, month: month, day: day, clock: fields[4])
        case 4 where fields[3] == "GMT" && fields[0].hasSuffix(","):
            let date = fields[1].split(separator: "-")
            guard date.count == 3, date[0].count == 2, let day = Int(date[0]),
                let month = months.firstIndex(of: String(date[1])), date[2].count == 2, let short = Int(date[2])
            else { return nil }
            var parts = tm()
            var current = time_t(now)
            gmtime_r(&current, &parts)
            let thisYear = Int(parts.tm_year) + 1900
            var year = thisYear - thisYear % 100 + short
            if year > thisYear + 50 { year -= 100 }
            return seconds(year: year, month: month, day: day, clock: fields[2])
        case 5 where days.contains(String(fields[0])):
            guard let month = months.firstIndex(of: String(fields[1])), let day = Int(fields[2]),
                fields[4].count == 4, let year = Int(fields[4])
            else { return nil }
            return seconds(year: year, month: month, day: day, clock: fields[3])
        default:
            return nil
        }
    }

    /// Seconds since 1970 of a GMT date and an `hh:mm:ss` time, nil when out of range.
    private static func seconds(year: Int, month: Int, day: Int, clock: Substring) -> Int? {
        let time = clock.split(separator: ":").compactMap { Int($0) }
        guard time.count == 3, clock.count == 8, (1...31).contains(day), (0...23).contains(time[0]),
            (0...59).contains(time[1]), (0...60).contains(time[2])
        else { return nil }
        var parts = tm()
        parts.tm_year = Int32(year - 1900)
        parts.tm_mon = Int32(month)
        parts.tm_mday = Int32(day)
        parts.tm_hour = Int32(time[0])
        parts.tm_min = Int32(time[1])
        parts.tm_sec = Int32(time[2])
        return Int(timegm(&parts))
    }
}
