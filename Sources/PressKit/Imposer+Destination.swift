import Mail
import PressPDF

extension Imposer {
    /// Where `postcard` goes, read from its trailer's `/Info`: `/DestinationCountry`,
    /// `/DestinationPostcode`, `/DestinationName` and `/MailClass` (PDF text strings, literal
    /// or UTF-16BE with its byte order mark, as `render --press` writes them with
    /// `PDFSyntax.text`). The postcode and the name may be absent (a country without
    /// postcodes); the country and the mail class may not. A country written as a name is
    /// read as `Country.resolve(_:)` reads it.
    /// - Returns: nil for a postcard whose Info has none of the four keys.
    /// - Throws: `ImpositionError` naming the postcard when it is not a readable PDF, or its
    ///   Info has some of the keys but not the country or the mail class, a key that is not a
    ///   text string, or a mail class other than `postcard` or `letter`.
    public static func destination(of postcard: Postcard) throws -> Destination? {
        let document: QPDFDocument
        do {
            document = try QPDFDocument(reading: postcard.bytes, name: postcard.name)
        } catch {
            throw ImpositionError(message: "\(postcard.name): not a readable PDF (\(error))")
        }
        guard let info = document.value("/Info", in: document.trailer) else { return nil }
        let present = Set(document.keys(info)).intersection(destinationInfoKeys)
        guard !present.isEmpty else { return nil }
        func text(_ key: String) throws -> String? {
            guard let value = document.value(key, in: info) else { return nil }
            // libqpdf decodes a text string (PDFDocEncoding, or UTF-16BE after FE FF) to UTF-8.
            guard let string = document.string(value) else {
                throw ImpositionError(
                    message: "\(postcard.name): \(key) in its Info is \(document.unparse(value).prefix(40)), "
                        + "not a text string")
            }
            return string
        }
        guard let countryText = try text("/DestinationCountry"), !countryText.isEmpty else {
            throw ImpositionError(
                message: "\(postcard.name): its Info has \(present.sorted().joined(separator: ", ")) but no "
                    + "/DestinationCountry; a destination needs its country")
        }
        guard let classText = try text("/MailClass") else {
            throw ImpositionError(
                message: "\(postcard.name): its Info has /DestinationCountry but no /MailClass (postcard or letter)")
        }
        guard let mailClass = MailClass(rawValue: classText) else {
            let names = MailClass.allCases.map(\.rawValue).joined(separator: " or ")
            throw ImpositionError(
                message: "\(postcard.name): /MailClass in its Info must be \(names); received \"\(classText)\"")
        }
        let country = (try? Country.resolve(countryText))?.code ?? countryText.uppercased()
        return Destination(
            country: country, postcode: try text("/DestinationPostcode") ?? "",
            name: try text("/DestinationName") ?? "", mailClass: mailClass)
    }
}
