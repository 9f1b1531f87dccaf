/// How one country writes an address (Google's libaddressinput metadata): the line order
/// in the local script and in Latin, the required fields, the fields in capitals, the
/// postcode's pattern and examples.
public struct AddressFormat: Sendable {
    /// Lines of `%N %O %A %D %C %S %Z %X` tokens and literal text, `%n` between lines.
    public let format: String
    /// The same for an address written in Latin letters, where it differs (Japan, China,
    /// Korea, Russia...).
    public let latinFormat: String?
    /// The fields that must be present, as format letters.
    public let required: Set<Character>
    /// The fields written in capitals, as format letters.
    public let upper: Set<Character>
    /// The postcode's pattern (ICU syntax), matched against the whole postcode in capitals.
    public let postcodePattern: String?
    /// Example postcodes.
    public let postcodeExamples: [String]
    /// A prefix some posts print before the postcode (e.g. "CH-"), not added here.
    public let postcodePrefix: String?
    /// What the country calls its region ("state", "province", "county"...), its postcode
    /// ("zip", "postal", "pin", "eircode") and its locality ("city", "post_town", "suburb"...).
    public let regionName: String, postcodeName: String, localityName: String, dependentLocalityName: String

    /// Reads one line of `PostalTables.addressFormats`.
    init(columns: [String]) {
        func optional(_ index: Int) -> String? { columns[index].isEmpty ? nil : columns[index] }
        format = columns[1].isEmpty ? "%N%n%O%n%A%n%C" : columns[1]
        latinFormat = optional(2)
        required = Set(columns[3].isEmpty && columns[1].isEmpty ? "AC" : columns[3])
        upper = Set(columns[4].isEmpty && columns[1].isEmpty ? "C" : columns[4])
        postcodePattern = optional(5)
        postcodeExamples = columns[6].split(separator: ",").map { String($0) }
        postcodePrefix = optional(7)
        regionName = optional(9) ?? "province"
        localityName = optional(10) ?? "city"
        dependentLocalityName = optional(11) ?? "suburb"
        postcodeName = optional(12) ?? "postal"
    }

    /// Where the postal tables come from (the address metadata's package and iso-codes'
    /// versions): a cache key names it, since the tables change the backs' bytes.
    public static var dataVersion: String { PostalTables.version }

    /// The format of `code`, or the default one (name, organisation, street lines, city).
    public static func of(code: String) -> AddressFormat {
        PostalData.shared.formats[code.uppercased()] ?? PostalData.shared.formats["ZZ"]
            ?? AddressFormat(columns: ["ZZ", "%N%n%O%n%A%n%C", "", "AC", "C", "", "", "", "", "", "", "", ""])
    }

    /// Whether the format has a place for the field of format letter `field`.
    public func has(_ field: Character) -> Bool { format.contains("%\(field)") }
}
