import Foundation
import TestSupport
import Testing

/// `docs/architecture.md` against the code: every target of `Package.swift` has its job in
/// one sentence and is a row with exactly its dependencies, every dependency points up the page, every file imports only what
/// its target declares and each target uses what it declares, no two folders of a target use
/// each other's types, and no hand-written Swift file is over 400 lines.
@Suite struct ArchitectureDocTests {
    /// A target as `swift package dump-package` describes it.
    struct Target {
        let name: String
        let type: String
        let path: String
        let dependencies: [String]
    }

    /// The package's targets, read by SwiftPM itself (a scratch folder of its own, so it
    /// never waits for the build's lock).
    static let targets: [Target] = {
        let scratch = NSTemporaryDirectory() + "cardrender-dump-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        guard
            let run = try? Tools.run(
                "/usr/bin/env",
                ["swift", "package", "--package-path", Fixtures.root.path, "--scratch-path", scratch, "dump-package"]),
            run.status == 0, let json = try? JSONSerialization.jsonObject(with: run.stdout) as? [String: Any],
            let targets = json["targets"] as? [[String: Any]]
        else { return [] }
        return targets.map { target in
            let name = target["name"] as? String ?? ""
            let dependencies = (target["dependencies"] as? [[String: Any]] ?? []).compactMap { dependency in
                dependency.values.compactMap { ($0 as? [Any])?.first as? String }.first
            }
            let type = target["type"] as? String ?? ""
            let path =
                target["path"] as? String ?? (type == "test" ? "Tests/" + name : "Sources/" + name)
            return Target(name: name, type: type, path: path, dependencies: dependencies)
        }
    }()

    /// The rows of the page's layout tables: each target's name and the names in its
    /// "depends on" cell, in the page's order.
    static func rows() throws -> [(name: String, dependencies: [String])] {
        let page = try String(contentsOfFile: Fixtures.root.path + "/docs/architecture.md", encoding: .utf8)
        let layout = page.components(separatedBy: "\n## Layout")[1].components(separatedBy: "\n## ")[0]
        let names = Set(targets.map(\.name))
        return DocPage.tableRows(in: layout).compactMap { cells in
            guard let name = DocPage.codeNames(in: cells[0]).first, names.contains(name) else { return nil }
            return (name, DocPage.codeNames(in: cells.last!))
        }
    }

    @Test func everyTargetIsOneRowWithExactlyItsDependencies() throws {
        try #require(!Self.targets.isEmpty, "swift package dump-package gave no targets")
        let rows = try Self.rows()
        #expect(rows.map(\.name).sorted() == Self.targets.map(\.name).sorted())
        let known = Set(Self.targets.flatMap { [$0.name] + $0.dependencies })
        for target in Self.targets {
            guard let row = rows.first(where: { $0.name == target.name }) else { continue }
            #expect(
                Set(row.dependencies.filter(known.contains)) == Set(target.dependencies),
                "the row of \(target.name) names other dependencies than Package.swift")
        }
    }

    @Test func everyTargetHasItsJobInOneSentence() throws {
        let page = try String(contentsOfFile: Fixtures.root.path + "/docs/architecture.md", encoding: .utf8)
        let section = page.components(separatedBy: "\n## Each target's job")[1].components(separatedBy: "\n## ")[0]
        var named: [String] = []
        for line in section.split(separator: "\n") where line.hasPrefix("- `") {
            guard let name = DocPage.codeNames(in: String(line)).first else { continue }
            named.append(name)
            let job = line.drop { $0 != ":" }.dropFirst().trimmingCharacters(in: .whitespaces)
            #expect(job.hasSuffix(".") && !job.dropLast().contains(". "), "\(name)'s job is not one sentence: \(job)")
        }
        #expect(named.sorted() == Self.targets.map(\.name).sorted())
    }

    @Test func everyDependencyIsARowAboveItsTarget() throws {
        let order = try Self.rows().map(\.name)
        for target in Self.targets {
            guard let position = order.firstIndex(of: target.name) else { continue }
            for dependency in target.dependencies {
                guard let above = order.firstIndex(of: dependency) else { continue }
                #expect(above < position, "\(target.name) depends on \(dependency), which is not above it")
            }
        }
    }

    @Test func eachTargetImportsWhatItDeclaresAndNothingElseOfOurs() throws {
        let ours = Set(Self.targets.map(\.name))
        for target in Self.targets where target.type != "system" && !target.path.hasPrefix("Sources/Native") {
            let imported = Self.imports(under: Fixtures.root.path + "/" + target.path)
            let undeclared = imported.intersection(ours).subtracting(target.dependencies).subtracting([target.name])
            #expect(undeclared.isEmpty, "\(target.name) imports \(undeclared.sorted()) without declaring them")
            if target.type != "test" {
                let unused = Set(target.dependencies).subtracting(imported)
                #expect(unused.isEmpty, "\(target.name) declares \(unused.sorted()) and imports none of them")
            }
        }
    }

    @Test func noTwoFoldersOfATargetUseEachOthersTypes() {
        for target in Self.targets where target.type == "regular" && target.path.hasPrefix("Sources/") {
            let folders = Self.topLevelFolders(of: Fixtures.root.path + "/" + target.path)
            guard folders.count > 1 else { continue }
            var declared: [String: String] = [:]
            for (folder, files) in folders {
                for file in files { for name in Self.declaredTypes(in: file.text) { declared[name] = folder } }
            }
            var uses: Set<[String]> = []
            for (folder, files) in folders {
                for file in files {
                    let words = Self.words(of: file.text)
                    for (name, owner) in declared where owner != folder && words.contains(name) {
                        uses.insert([folder, owner])
                    }
                }
            }
            for pair in uses where pair[0] < pair[1] && uses.contains([pair[1], pair[0]]) {
                Issue.record("\(target.name): \(pair[0])/ and \(pair[1])/ use each other's types")
            }
        }
    }

    @Test func noHandWrittenSwiftFileIsOver400Lines() throws {
        let sources = Fixtures.root.path + "/Sources"
        for file in Fixtures.files(under: sources) where file.hasSuffix(".swift") && !file.contains("Generated/") {
            let lines = try String(contentsOfFile: sources + "/" + file, encoding: .utf8).split(
                separator: "\n", omittingEmptySubsequences: false)
            #expect(lines.count <= 401, "\(file) has \(lines.count) lines")
        }
    }

    /// The modules imported by the Swift files under `directory`.
    static func imports(under directory: String) -> Set<String> {
        var modules: Set<String> = []
        for file in Fixtures.files(under: directory) where file.hasSuffix(".swift") {
            guard let text = try? String(contentsOfFile: directory + "/" + file, encoding: .utf8) else { continue }
            for line in text.split(separator: "\n") {
                let words = line.trimmingCharacters(in: .whitespaces).split(separator: " ")
                guard let index = words.firstIndex(of: "import"), index + 1 < words.count,
                    words[..<index].allSatisfy({ $0.hasPrefix("@") || Self.accessWords.contains(String($0)) })
                else { continue }
                modules.insert(String(words[index + 1].split(separator: ".")[0]))
            }
        }
        return modules
    }

    static let accessWords: Set<String> = ["public", "package", "internal", "private", "fileprivate"]

    /// The Swift files of `directory` by the first folder below it ("" for its own files).
    static func topLevelFolders(of directory: String) -> [String: [(path: String, text: String)]] {
        var folders: [String: [(path: String, text: String)]] = [:]
        for file in Fixtures.files(under: directory) where file.hasSuffix(".swift") {
            let folder = file.contains("/") ? String(file.split(separator: "/")[0]) : ""
            let text = (try? String(contentsOfFile: directory + "/" + file, encoding: .utf8)) ?? ""
            folders[folder, default: []].append((file, text))
        }
        return folders
    }

    /// The types a file declares at its top level (nested types are their parent's).
    static func declaredTypes(in text: String) -> [String] {
        let kinds: Set<Substring> = ["struct", "enum", "class", "protocol", "actor", "typealias"]
        let modifiers: Set<Substring> = ["public", "package", "internal", "final", "indirect", "open"]
        return text.split(separator: "\n").compactMap { line in
            guard let first = line.first, first.isLetter else { return nil }
            let words = line.split(separator: " ")
            guard let index = words.firstIndex(where: { kinds.contains($0) }), index + 1 < words.count,
                words[..<index].allSatisfy(modifiers.contains)
            else { return nil }
            return String(words[index + 1].prefix { $0.isLetter || $0.isNumber || $0 == "_" })
        }
    }

    /// The identifiers of a file's code, comments and string literals left out; a name after
    /// a dot is a member, not a type, and is left out too.
    static func words(of text: String) -> Set<String> {
        var words: Set<String> = []
        for line in text.split(separator: "\n") {
            var code = Substring(line)
            if let comment = code.range(of: "//") { code = code[..<comment.lowerBound] }
            var word = ""
            var afterDot = false
            var inString = false
            for character in code {
                if character == "\"" { inString.toggle() }
                if !inString, character.isLetter || character.isNumber || character == "_" {
                    word.append(character)
                    continue
                }
                if !word.isEmpty, !afterDot { words.insert(word) }
                afterDot = character == "."
                word = ""
            }
            if !word.isEmpty, !afterDot { words.insert(word) }
        }
        return words
    }
}
