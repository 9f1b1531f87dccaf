/// Why a URL cannot be a webhook endpoint (or receive an attempt now): a phrase naming `url`
/// and the cause (`url resolves to a private or reserved address (10.0.0.1)`).
struct WebhookRefusal: Error, Sendable, Equatable {
    let reason: String
}
