extension StringProtocol {
    /// Without leading and trailing characters of `set`.
    func trimmed(of set: String) -> String {
        let drop = Set(set)
        return String(self.drop { drop.contains($0) }.reversed().drop { drop.contains($0) }.reversed())
    }
}
