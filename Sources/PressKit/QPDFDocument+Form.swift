import PressPDF

extension QPDFDocument {
    /// A form XObject's `/Matrix` (identity when absent or malformed): what maps the form's
    /// space into the space it is drawn in, for preflight and the postal check alike.
    func formMatrix(_ form: Object) -> PDFContentScanner.Matrix {
        guard let numbers = value("/Matrix", in: form).flatMap(items)?.compactMap(number), numbers.count == 6 else {
            return .identity
        }
        return PDFContentScanner.Matrix(
            a: numbers[0], b: numbers[1], c: numbers[2], d: numbers[3], e: numbers[4], f: numbers[5])
    }
}
