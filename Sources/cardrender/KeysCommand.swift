import ArgumentParser
import CardService

/// `cardrender keys create NAME`: an API key for the postcard service.
struct KeysCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "keys",
        abstract: "Manage the postcard service's API keys.",
        subcommands: [Create.self]
    )

    /// `keys create NAME`.
    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Create an API key: the key alone is printed on standard output, once; only its hash is kept.",
            discussion: "Send it as 'Authorization: Bearer KEY'. A key sees only its own photos, cards and runs.")

        @Argument(help: "A name for the key (who it is for), kept beside its hash.")
        var name: String

        @OptionGroup var postcards: ServiceOptions

        func validate() throws {
            guard postcards.isOn else {
                throw ValidationError("Give --data DIR or --database URL: where the keys are.")
            }
            guard !name.isEmpty, name.utf8.count <= 200 else {
                throw ValidationError("The name must have 1 to 200 bytes; received \(name.utf8.count).")
            }
        }

        func run() async throws {
            let database: any ServiceDatabase
            do {
                database = try await postcards.openDatabase()
            } catch {
                Console.error("cardrender: the postcard service's database cannot be used: \(error)")
                throw ExitCode(64)
            }
            let key = try await OrderBook(database: database).createKey(name: name)
            await database.close()
            print(key.secret)
            Console.error("cardrender: created the key \(key.id) (\(name)); it is printed above, once.")
        }
    }
}
