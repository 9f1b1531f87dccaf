// Made by scripts/generate-openapi.sh from openapi.yaml; do not edit.

/// The OpenAPI 3.1 document of `/v1`, served at `/v1/openapi.json`.
enum OpenAPIDocument {
    /// The document, JSON.
    static let json = #"""
        {
         "components": {
          "responses": {
           "Problem": {
            "content": {
             "application/problem+json": {
              "schema": {
               "$ref": "#/components/schemas/Problem"
              }
             }
            },
            "description": "An error (RFC 9457)."
           }
          },
          "schemas": {
           "Address": {
            "additionalProperties": false,
            "description": "A postal address (docs/mail.md); `city` or its other name `locality`.",
            "properties": {
             "address1": {
              "type": [
               "string",
               "null"
              ]
             },
             "address2": {
              "type": [
               "string",
               "null"
              ]
             },
             "address3": {
              "type": [
               "string",
               "null"
              ]
             },
             "city": {
              "type": [
               "string",
               "null"
              ]
             },
             "country": {
              "type": [
               "string",
               "null"
              ]
             },
             "dependentLocality": {
              "type": [
               "string",
               "null"
              ]
             },
             "locality": {
              "type": [
               "string",
               "null"
              ]
             },
             "name": {
              "type": "string"
             },
             "organisation": {
              "type": [
               "string",
               "null"
              ]
             },
             "postcode": {
              "type": [
               "string",
               "null"
              ]
             },
             "region": {
              "type": [
               "string",
               "null"
              ]
             },
             "sortingCode": {
              "type": [
               "string",
               "null"
              ]
             }
            },
            "required": [
             "name"
            ],
            "type": "object"
           },
           "Box": {
            "properties": {
             "height": {
              "type": "integer"
             },
             "width": {
              "type": "integer"
             },
             "x": {
              "type": "integer"
             },
             "y": {
              "type": "integer"
             }
            },
            "required": [
             "x",
             "y",
             "width",
             "height"
            ],
            "type": "object"
           },
           "Card": {
            "properties": {
             "error": {
              "type": [
               "string",
               "null"
              ]
             },
             "files": {
              "$ref": "#/components/schemas/CardFiles"
             },
             "id": {
              "type": "string"
             },
             "mailClass": {
              "description": "How the post carries the card, from its size (docs/mail.md).",
              "enum": [
               "postcard",
               "letter"
              ],
              "type": "string"
             },
             "press": {
              "type": "string"
             },
             "recipient": {
              "type": [
               "integer",
               "null"
              ]
             },
             "status": {
              "$ref": "#/components/schemas/CardStatus"
             },
             "times": {
              "$ref": "#/components/schemas/StatusTimes"
             },
             "verdict": {
              "description": "The print-quality verdict once rendered (ok, low), else null.",
              "type": [
               "string",
               "null"
              ]
             },
             "warnings": {
              "description": "What the post may do with the card, one sentence each (abroad without a sender, a letter-sized card abroad); the card is still made.",
              "items": {
               "type": "string"
              },
              "type": "array"
             }
            },
            "required": [
             "id",
             "status",
             "times",
             "verdict",
             "error",
             "files",
             "mailClass",
             "warnings"
            ],
            "type": "object"
           },
           "CardFiles": {
            "properties": {
             "print": {
              "type": [
               "string",
               "null"
              ]
             },
             "sample": {
              "type": [
               "string",
               "null"
              ]
             },
             "small": {
              "type": [
               "string",
               "null"
              ]
             }
            },
            "required": [
             "sample",
             "small",
             "print"
            ],
            "type": "object"
           },
           "CardList": {
            "properties": {
             "cards": {
              "items": {
               "$ref": "#/components/schemas/Card"
              },
              "type": "array"
             },
             "next": {
              "type": [
               "string",
               "null"
              ]
             }
            },
            "required": [
             "cards",
             "next"
            ],
            "type": "object"
           },
           "CardOrder": {
            "additionalProperties": false,
            "properties": {
             "press": {
              "default": "rgb-jpeg",
              "description": "A press preset (`cardrender impose --help` lists them) or `rgb-jpeg` (the default).",
              "type": "string"
             },
             "spec": {
              "$ref": "#/components/schemas/CardSpec"
             }
            },
            "required": [
             "spec"
            ],
            "type": "object"
           },
           "CardSpec": {
            "additionalProperties": false,
            "description": "A card spec in the `.card.json` format (see docs/render.md), whose `photo` is the id of a photo this key uploaded. The renderer checks the values (ranges, names, the address for its destination): an unknown or invalid field is a 422 naming its path.\n",
            "properties": {
             "background": {
              "description": "\"#rrggbb\"",
              "type": "string"
             },
             "card": {
              "additionalProperties": false,
              "properties": {
               "bleed": {
                "type": "number"
               },
               "dpi": {
                "type": "integer"
               },
               "size": {
                "type": "string"
               }
              },
              "type": "object"
             },
             "crop": {
              "additionalProperties": false,
              "description": "The photo's rectangle in upright pixels (not with `transform`).",
              "properties": {
               "height": {
                "type": "integer"
               },
               "width": {
                "type": "integer"
               },
               "x": {
                "type": "integer"
               },
               "y": {
                "type": "integer"
               }
              },
              "required": [
               "x",
               "y",
               "width",
               "height"
              ],
              "type": "object"
             },
             "effect": {
              "description": "An effect name, or {name, strength}.",
              "oneOf": [
               {
                "type": "string"
               },
               {
                "type": "null"
               },
               {
                "additionalProperties": false,
                "properties": {
                 "name": {
                  "type": "string"
                 },
                 "strength": {
                  "type": "number"
                 }
                },
                "required": [
                 "name"
                ],
                "type": "object"
               }
              ]
             },
             "frame": {
              "description": "A frame id (GET /v1/frames).",
              "type": [
               "string",
               "null"
              ]
             },
             "message": {
              "oneOf": [
               {
                "type": "null"
               },
               {
                "additionalProperties": false,
                "properties": {
                 "align": {
                  "type": "string"
                 },
                 "colour": {
                  "type": "string"
                 },
                 "font": {
                  "type": "string"
                 },
                 "size": {
                  "type": "integer"
                 },
                 "text": {
                  "type": "string"
                 }
                },
                "required": [
                 "text"
                ],
                "type": "object"
               }
              ]
             },
             "photo": {
              "maxLength": 100,
              "type": "string"
             },
             "recipients": {
              "oneOf": [
               {
                "type": "null"
               },
               {
                "items": {
                 "$ref": "#/components/schemas/Address"
                },
                "type": "array"
               }
              ]
             },
             "sender": {
              "oneOf": [
               {
                "type": "null"
               },
               {
                "$ref": "#/components/schemas/Address"
               }
              ]
             },
             "transform": {
              "description": "\"auto\" (the first placement), or the gesture: scale, rotation in degrees, offset in window fractions.",
              "oneOf": [
               {
                "enum": [
                 "auto"
                ],
                "type": "string"
               },
               {
                "additionalProperties": false,
                "properties": {
                 "offset": {
                  "additionalProperties": false,
                  "properties": {
                   "x": {
                    "type": "number"
                   },
                   "y": {
                    "type": "number"
                   }
                  },
                  "type": "object"
                 },
                 "rotation": {
                  "type": "number"
                 },
                 "scale": {
                  "type": "number"
                 }
                },
                "type": "object"
               }
              ]
             },
             "version": {
              "description": "The spec format (1).",
              "type": "integer"
             }
            },
            "required": [
             "version",
             "photo"
            ],
            "type": "object"
           },
           "CardStatus": {
            "enum": [
             "queued",
             "rendering",
             "ready",
             "failed",
             "cancelled",
             "printed",
             "mailed",
             "returned",
             "delivered"
            ],
            "type": "string"
           },
           "CreatedCard": {
            "properties": {
             "id": {
              "type": "string"
             },
             "recipient": {
              "description": "The recipient's index in the spec, or null for a card without recipients.",
              "type": [
               "integer",
               "null"
              ]
             },
             "status": {
              "$ref": "#/components/schemas/CardStatus"
             }
            },
            "required": [
             "id",
             "status",
             "recipient"
            ],
            "type": "object"
           },
           "CreatedCards": {
            "properties": {
             "cards": {
              "items": {
               "$ref": "#/components/schemas/CreatedCard"
              },
              "type": "array"
             }
            },
            "required": [
             "cards"
            ],
            "type": "object"
           },
           "DepositManifest": {
            "properties": {
             "countries": {
              "additionalProperties": {
               "type": "integer"
              },
              "type": "object"
             },
             "departements": {
              "additionalProperties": {
               "type": "integer"
              },
              "type": "object"
             },
             "rows": {
              "items": {
               "properties": {
                "card": {
                 "type": "string"
                },
                "country": {
                 "type": "string"
                },
                "mailClass": {
                 "enum": [
                  "postcard",
                  "letter"
                 ],
                 "type": "string"
                },
                "position": {
                 "type": "integer"
                },
                "postcode": {
                 "type": "string"
                },
                "sequence": {
                 "type": "integer"
                },
                "sheet": {
                 "type": "integer"
                }
               },
               "required": [
                "sequence",
                "card",
                "country",
                "postcode",
                "mailClass",
                "sheet",
                "position"
               ],
               "type": "object"
              },
              "type": "array"
             }
            },
            "required": [
             "rows",
             "countries",
             "departements"
            ],
            "type": "object"
           },
           "Event": {
            "description": "Something that happened, in the Standard Webhooks body's shape: the card as GET /v1/cards/{id} showed it then (card.*), or the run as GET /v1/print-runs/{id} did (print_run.*).",
            "properties": {
             "data": {
              "oneOf": [
               {
                "$ref": "#/components/schemas/Card"
               },
               {
                "$ref": "#/components/schemas/PrintRun"
               },
               {
                "$ref": "#/components/schemas/WebhookEndpoint"
               }
              ]
             },
             "id": {
              "type": "string"
             },
             "timestamp": {
              "format": "date-time",
              "type": "string"
             },
             "type": {
              "$ref": "#/components/schemas/EventType"
             }
            },
            "required": [
             "id",
             "type",
             "timestamp",
             "data"
            ],
            "type": "object"
           },
           "EventList": {
            "properties": {
             "events": {
              "items": {
               "$ref": "#/components/schemas/Event"
              },
              "type": "array"
             },
             "more": {
              "description": "Whether more events follow at once.",
              "type": "boolean"
             },
             "next": {
              "description": "The cursor to poll with next (the last event's, or the one given when none followed).",
              "type": [
               "string",
               "null"
              ]
             }
            },
            "required": [
             "events",
             "next",
             "more"
            ],
            "type": "object"
           },
           "EventType": {
            "enum": [
             "card.queued",
             "card.ready",
             "card.failed",
             "card.cancelled",
             "card.printed",
             "card.mailed",
             "card.returned",
             "card.delivered",
             "print_run.created",
             "print_run.mailed",
             "webhook_endpoint.disabled"
            ],
            "type": "string"
           },
           "Fractions": {
            "description": "A rectangle in fractions of a card (0 to 1): of the print file, bleed included, in a placement (the preview's shape); of the trimmed card in the frame list.\n",
            "properties": {
             "height": {
              "type": "number"
             },
             "width": {
              "type": "number"
             },
             "x": {
              "type": "number"
             },
             "y": {
              "type": "number"
             }
            },
            "required": [
             "x",
             "y",
             "width",
             "height"
            ],
            "type": "object"
           },
           "Frame": {
            "properties": {
             "id": {
              "type": "string"
             },
             "orientation": {
              "enum": [
               "landscape",
               "portrait"
              ],
              "type": "string"
             },
             "theme": {
              "type": "string"
             },
             "thumbnail": {
              "type": "string"
             },
             "title": {
              "type": "string"
             },
             "window": {
              "$ref": "#/components/schemas/Fractions"
             }
            },
            "required": [
             "id",
             "theme",
             "title",
             "orientation",
             "window",
             "thumbnail"
            ],
            "type": "object"
           },
           "FrameList": {
            "properties": {
             "frames": {
              "items": {
               "$ref": "#/components/schemas/Frame"
              },
              "type": "array"
             }
            },
            "required": [
             "frames"
            ],
            "type": "object"
           },
           "ManifestFiles": {
            "properties": {
             "csv": {
              "type": "string"
             },
             "json": {
              "type": "string"
             }
            },
            "required": [
             "csv",
             "json"
            ],
            "type": "object"
           },
           "Photo": {
            "properties": {
             "format": {
              "type": "string"
             },
             "height": {
              "type": "integer"
             },
             "id": {
              "type": "string"
             },
             "width": {
              "type": "integer"
             }
            },
            "required": [
             "id",
             "width",
             "height",
             "format"
            ],
            "type": "object"
           },
           "Placement": {
            "properties": {
             "card": {
              "description": "The print file's size in pixels (bleed included); the preview is this shape.",
              "properties": {
               "height": {
                "type": "integer"
               },
               "width": {
                "type": "integer"
               }
              },
              "required": [
               "width",
               "height"
              ],
              "type": "object"
             },
             "faces": {
              "description": "The faces kept, in pixels of the upright photo.",
              "items": {
               "$ref": "#/components/schemas/Box"
              },
              "type": "array"
             },
             "reason": {
              "description": "Why, e.g. \"2 faces kept\", \"1 of 3 faces kept\", \"most detail (no face found)\".",
              "type": "string"
             },
             "transform": {
              "$ref": "#/components/schemas/Transform"
             },
             "window": {
              "$ref": "#/components/schemas/Fractions"
             }
            },
            "required": [
             "transform",
             "reason",
             "faces",
             "card",
             "window"
            ],
            "type": "object"
           },
           "PrintRun": {
            "properties": {
             "cards": {
              "description": "The cards in the run's order (by destination; the order the cut stacks give).",
              "items": {
               "type": "string"
              },
              "type": "array"
             },
             "id": {
              "type": "string"
             },
             "mailed": {
              "description": "When the run was handed to the post (RFC 3339, UTC), null before.",
              "format": "date-time",
              "type": [
               "string",
               "null"
              ]
             },
             "manifest": {
              "description": "The deposit manifest's addresses, null for a run made before runs kept one.",
              "oneOf": [
               {
                "$ref": "#/components/schemas/ManifestFiles"
               },
               {
                "type": "null"
               }
              ]
             },
             "press": {
              "type": "string"
             },
             "sheet": {
              "type": "string"
             },
             "sheets": {
              "items": {
               "type": "string"
              },
              "type": "array"
             }
            },
            "required": [
             "id",
             "cards",
             "sheets",
             "manifest",
             "mailed"
            ],
            "type": "object"
           },
           "PrintRunOrder": {
            "additionalProperties": false,
            "properties": {
             "press": {
              "type": "string"
             },
             "sheet": {
              "description": "The sheet size (`cardrender impose --help` lists them), e.g. sra3.",
              "type": "string"
             }
            },
            "required": [
             "press",
             "sheet"
            ],
            "type": "object"
           },
           "Problem": {
            "properties": {
             "detail": {
              "type": "string"
             },
             "errors": {
              "description": "The spec's errors, each with its field path.",
              "items": {
               "properties": {
                "detail": {
                 "type": "string"
                },
                "field": {
                 "type": "string"
                }
               },
               "required": [
                "field",
                "detail"
               ],
               "type": "object"
              },
              "type": "array"
             },
             "status": {
              "type": "integer"
             },
             "title": {
              "type": "string"
             },
             "type": {
              "type": "string"
             }
            },
            "required": [
             "type",
             "title",
             "status",
             "detail"
            ],
            "type": "object"
           },
           "ReplayAnswer": {
            "properties": {
             "events": {
              "type": "integer"
             }
            },
            "required": [
             "events"
            ],
            "type": "object"
           },
           "ReplayOrder": {
            "additionalProperties": false,
            "properties": {
             "since": {
              "format": "date-time",
              "maxLength": 40,
              "type": "string"
             }
            },
            "required": [
             "since"
            ],
            "type": "object"
           },
           "StatusTimes": {
            "additionalProperties": false,
            "description": "When the card reached each status it has been through (RFC 3339, UTC).",
            "properties": {
             "cancelled": {
              "format": "date-time",
              "type": "string"
             },
             "delivered": {
              "format": "date-time",
              "type": "string"
             },
             "failed": {
              "format": "date-time",
              "type": "string"
             },
             "mailed": {
              "format": "date-time",
              "type": "string"
             },
             "printed": {
              "format": "date-time",
              "type": "string"
             },
             "queued": {
              "format": "date-time",
              "type": "string"
             },
             "ready": {
              "format": "date-time",
              "type": "string"
             },
             "returned": {
              "format": "date-time",
              "type": "string"
             }
            },
            "type": "object"
           },
           "Transform": {
            "description": "A spec's `transform`.",
            "properties": {
             "offset": {
              "properties": {
               "x": {
                "type": "number"
               },
               "y": {
                "type": "number"
               }
              },
              "required": [
               "x",
               "y"
              ],
              "type": "object"
             },
             "rotation": {
              "type": "number"
             },
             "scale": {
              "type": "number"
             }
            },
            "required": [
             "scale",
             "rotation",
             "offset"
            ],
            "type": "object"
           },
           "WebhookEndpoint": {
            "properties": {
             "created": {
              "format": "date-time",
              "type": "string"
             },
             "description": {
              "type": "string"
             },
             "disabled": {
              "description": "When it was disabled for failing too long (RFC 3339), null while it receives events.",
              "type": [
               "string",
               "null"
              ]
             },
             "id": {
              "type": "string"
             },
             "types": {
              "items": {
               "$ref": "#/components/schemas/EventType"
              },
              "type": "array"
             },
             "url": {
              "type": "string"
             }
            },
            "required": [
             "id",
             "url",
             "types",
             "description",
             "created",
             "disabled"
            ],
            "type": "object"
           },
           "WebhookEndpointList": {
            "properties": {
             "endpoints": {
              "items": {
               "$ref": "#/components/schemas/WebhookEndpoint"
              },
              "type": "array"
             }
            },
            "required": [
             "endpoints"
            ],
            "type": "object"
           },
           "WebhookEndpointOrder": {
            "additionalProperties": false,
            "properties": {
             "description": {
              "maxLength": 500,
              "type": "string"
             },
             "types": {
              "description": "The event types it receives; every type when absent or empty.",
              "items": {
               "$ref": "#/components/schemas/EventType"
              },
              "maxItems": 20,
              "type": "array",
              "uniqueItems": true
             },
             "url": {
              "description": "https (http only to a loopback receiver when the server allows it); not a private address.",
              "maxLength": 2048,
              "minLength": 1,
              "type": "string"
             }
            },
            "required": [
             "url"
            ],
            "type": "object"
           },
           "WebhookEndpointWithSecret": {
            "properties": {
             "created": {
              "format": "date-time",
              "type": "string"
             },
             "description": {
              "type": "string"
             },
             "disabled": {
              "type": [
               "string",
               "null"
              ]
             },
             "id": {
              "type": "string"
             },
             "secret": {
              "description": "whsec_ and the key in base64; shown once.",
              "type": "string"
             },
             "types": {
              "items": {
               "$ref": "#/components/schemas/EventType"
              },
              "type": "array"
             },
             "url": {
              "type": "string"
             }
            },
            "required": [
             "id",
             "url",
             "types",
             "description",
             "created",
             "disabled",
             "secret"
            ],
            "type": "object"
           }
          },
          "securitySchemes": {
           "apiKey": {
            "scheme": "bearer",
            "type": "http"
           }
          }
         },
         "info": {
          "description": "The postcard app's server: photos uploaded by digest, live previews from the print renderer, cards ordered per recipient with idempotent creation, rendered by a durable queue, and gathered into print runs. Every request needs an API key (`cardrender keys create NAME`) as `Authorization: Bearer KEY`; a key sees only its own photos, cards and runs. Errors are `application/problem+json` (RFC 9457), a sentence naming the parameter or field; every object refuses fields it does not declare (422, each named), and a request is checked against this document before anything else.\n",
          "title": "cardrender postcard service",
          "version": "1.0.0"
         },
         "openapi": "3.1.0",
         "paths": {
          "/v1/cards": {
           "get": {
            "operationId": "listCards",
            "parameters": [
             {
              "in": "query",
              "name": "status",
              "required": false,
              "schema": {
               "$ref": "#/components/schemas/CardStatus"
              }
             },
             {
              "in": "query",
              "name": "limit",
              "required": false,
              "schema": {
               "default": 20,
               "maximum": 100,
               "minimum": 1,
               "type": "integer"
              }
             },
             {
              "description": "The `next` cursor of the previous page.",
              "in": "query",
              "name": "after",
              "required": false,
              "schema": {
               "maxLength": 100,
               "type": "string"
              }
             }
            ],
            "responses": {
             "200": {
              "content": {
               "application/json": {
                "schema": {
                 "$ref": "#/components/schemas/CardList"
                }
               }
              },
              "description": "A page."
             },
             "default": {
              "$ref": "#/components/responses/Problem"
             }
            },
            "summary": "This key's cards, newest first, a page at a time."
           },
           "post": {
            "operationId": "createCards",
            "parameters": [
             {
              "description": "1 to 255 printable ASCII characters; the same key and body give the first answer again.",
              "in": "header",
              "name": "Idempotency-Key",
              "required": false,
              "schema": {
               "maxLength": 255,
               "minLength": 1,
               "pattern": "^[\\x20-\\x7E]{1,255}$",
               "type": "string"
              }
             }
            ],
            "requestBody": {
             "content": {
              "application/json": {
               "schema": {
                "$ref": "#/components/schemas/CardOrder"
               }
              }
             },
             "required": true
            },
            "responses": {
             "202": {
              "content": {
               "application/json": {
                "schema": {
                 "$ref": "#/components/schemas/CreatedCards"
                }
               }
              },
              "description": "Queued (or, with an Idempotency-Key used before with the same body, the first answer).",
              "links": {
               "CancelFirstCard": {
                "operationId": "cancelCard",
                "parameters": {
                 "id": "$response.body#/cards/0/id"
                }
               },
               "GetFirstCard": {
                "operationId": "getCard",
                "parameters": {
                 "id": "$response.body#/cards/0/id"
                }
               }
              }
             },
             "default": {
              "$ref": "#/components/responses/Problem"
             }
            },
            "summary": "Order a card per recipient (one where the spec has none), queued for rendering."
           }
          },
          "/v1/cards/{id}": {
           "delete": {
            "operationId": "cancelCard",
            "responses": {
             "200": {
              "content": {
               "application/json": {
                "schema": {
                 "$ref": "#/components/schemas/Card"
                }
               }
              },
              "description": "The card, cancelled."
             },
             "default": {
              "$ref": "#/components/responses/Problem"
             }
            },
            "summary": "Cancel a card (409 once it is in a print run)."
           },
           "get": {
            "operationId": "getCard",
            "responses": {
             "200": {
              "content": {
               "application/json": {
                "schema": {
                 "$ref": "#/components/schemas/Card"
                }
               }
              },
              "description": "The card."
             },
             "default": {
              "$ref": "#/components/responses/Problem"
             }
            },
            "summary": "A card's status, verdict, error and files."
           },
           "parameters": [
            {
             "in": "path",
             "name": "id",
             "required": true,
             "schema": {
              "maxLength": 100,
              "type": "string"
             }
            }
           ]
          },
          "/v1/cards/{id}/files/{file}": {
           "get": {
            "operationId": "getCardFile",
            "responses": {
             "200": {
              "content": {
               "application/pdf": {
                "schema": {
                 "contentMediaType": "application/pdf",
                 "type": "string"
                }
               },
               "image/jpeg": {
                "schema": {
                 "contentMediaType": "image/jpeg",
                 "type": "string"
                }
               },
               "image/png": {
                "schema": {
                 "contentMediaType": "image/png",
                 "type": "string"
                }
               },
               "image/tiff": {
                "schema": {
                 "contentMediaType": "image/tiff",
                 "type": "string"
                }
               }
              },
              "description": "The file."
             },
             "default": {
              "$ref": "#/components/responses/Problem"
             }
            },
            "summary": "One of a ready card's files."
           },
           "parameters": [
            {
             "in": "path",
             "name": "id",
             "required": true,
             "schema": {
              "maxLength": 100,
              "type": "string"
             }
            },
            {
             "in": "path",
             "name": "file",
             "required": true,
             "schema": {
              "enum": [
               "sample",
               "small",
               "print"
              ],
              "type": "string"
             }
            }
           ]
          },
          "/v1/events": {
           "get": {
            "operationId": "listEvents",
            "parameters": [
             {
              "description": "The `next` cursor of a previous page; the first events when absent.",
              "in": "query",
              "name": "after",
              "required": false,
              "schema": {
               "maxLength": 30,
               "pattern": "^[0-9]{1,19}$",
               "type": "string"
              }
             },
             {
              "in": "query",
              "name": "limit",
              "required": false,
              "schema": {
               "default": 20,
               "maximum": 100,
               "minimum": 1,
               "type": "integer"
              }
             },
             {
              "in": "query",
              "name": "type",
              "required": false,
              "schema": {
               "$ref": "#/components/schemas/EventType"
              }
             }
            ],
            "responses": {
             "200": {
              "content": {
               "application/json": {
                "schema": {
                 "$ref": "#/components/schemas/EventList"
                }
               }
              },
              "description": "A page (empty when nothing happened since the cursor)."
             },
             "default": {
              "$ref": "#/components/responses/Problem"
             }
            },
            "summary": "This key's events, oldest first, a page at a time (poll with the last page's next cursor, the key's own count of its events). Events are kept 30 days by default.\n"
           }
          },
          "/v1/frames": {
           "get": {
            "operationId": "listFrames",
            "responses": {
             "200": {
              "content": {
               "application/json": {
                "schema": {
                 "$ref": "#/components/schemas/FrameList"
                }
               }
              },
              "description": "Every frame."
             },
             "default": {
              "$ref": "#/components/responses/Problem"
             }
            },
            "summary": "The frame catalogue, with where each frame's photo window is."
           }
          },
          "/v1/frames/{theme}/{name}/thumbnail": {
           "get": {
            "operationId": "frameThumbnail",
            "parameters": [
             {
              "in": "path",
              "name": "theme",
              "required": true,
              "schema": {
               "type": "string"
              }
             },
             {
              "in": "path",
              "name": "name",
              "required": true,
              "schema": {
               "type": "string"
              }
             },
             {
              "in": "query",
              "name": "width",
              "required": false,
              "schema": {
               "default": 240,
               "maximum": 480,
               "minimum": 40,
               "type": "integer"
              }
             }
            ],
            "responses": {
             "200": {
              "content": {
               "image/png": {
                "schema": {
                 "contentMediaType": "image/png",
                 "type": "string"
                }
               }
              },
              "description": "The thumbnail."
             },
             "default": {
              "$ref": "#/components/responses/Problem"
             }
            },
            "summary": "A frame's art, flattened onto light grey, as a PNG."
           }
          },
          "/v1/photos": {
           "post": {
            "operationId": "uploadPhoto",
            "requestBody": {
             "content": {
              "application/octet-stream": {
               "schema": {
                "contentMediaType": "application/octet-stream",
                "type": "string"
               }
              },
              "image/gif": {
               "schema": {
                "contentMediaType": "image/gif",
                "type": "string"
               }
              },
              "image/heic": {
               "schema": {
                "contentMediaType": "image/heic",
                "type": "string"
               }
              },
              "image/heif": {
               "schema": {
                "contentMediaType": "image/heif",
                "type": "string"
               }
              },
              "image/jpeg": {
               "schema": {
                "contentMediaType": "image/jpeg",
                "type": "string"
               }
              },
              "image/png": {
               "schema": {
                "contentMediaType": "image/png",
                "type": "string"
               }
              },
              "image/tiff": {
               "schema": {
                "contentMediaType": "image/tiff",
                "type": "string"
               }
              },
              "image/webp": {
               "schema": {
                "contentMediaType": "image/webp",
                "type": "string"
               }
              },
              "multipart/form-data": {
               "schema": {
                "additionalProperties": {
                 "contentMediaType": "*/*",
                 "type": "string"
                },
                "description": "One part holding the image (a browser form's file field, any name).",
                "type": "object"
               }
              }
             },
             "required": true
            },
            "responses": {
             "200": {
              "content": {
               "application/json": {
                "schema": {
                 "$ref": "#/components/schemas/Photo"
                }
               }
              },
              "description": "This key had stored these bytes already."
             },
             "201": {
              "content": {
               "application/json": {
                "schema": {
                 "$ref": "#/components/schemas/Photo"
                }
               }
              },
              "description": "Stored."
             },
             "default": {
              "$ref": "#/components/responses/Problem"
             }
            },
            "summary": "Store a photo; the same bytes give the same id. The body is the image's bytes (sent with its own type or as octet-stream), or a form with one file part (at most 8 parts, each with at most 8 KiB and 32 fields of headers); the format is read from the bytes, and the photo is decoded whole before it is accepted. Uploads take turns between keys: 503 with Retry-After when no upload slot comes free in time.\n"
           }
          },
          "/v1/photos/{id}": {
           "get": {
            "operationId": "getPhoto",
            "parameters": [
             {
              "in": "path",
              "name": "id",
              "required": true,
              "schema": {
               "maxLength": 100,
               "type": "string"
              }
             },
             {
              "description": "The JPEG's width in pixels (never wider than the photo).",
              "in": "query",
              "name": "width",
              "required": false,
              "schema": {
               "maximum": 2048,
               "minimum": 16,
               "type": "integer"
              }
             }
            ],
            "responses": {
             "200": {
              "content": {
               "application/json": {
                "schema": {
                 "$ref": "#/components/schemas/Photo"
                }
               },
               "image/jpeg": {
                "schema": {
                 "contentMediaType": "image/jpeg",
                 "type": "string"
                }
               }
              },
              "description": "The photo's facts, or its reduced JPEG when `width` is given."
             },
             "default": {
              "$ref": "#/components/responses/Problem"
             }
            },
            "summary": "A photo this key uploaded: its upright size and format, or with `width` the photo itself, upright, as a JPEG that many pixels wide (the studio's moving copy of a photo the browser cannot decode, such as HEIC).\n"
           }
          },
          "/v1/placements": {
           "post": {
            "operationId": "firstPlacement",
            "requestBody": {
             "content": {
              "application/json": {
               "schema": {
                "$ref": "#/components/schemas/CardSpec"
               }
              }
             },
             "required": true
            },
            "responses": {
             "200": {
              "content": {
               "application/json": {
                "schema": {
                 "$ref": "#/components/schemas/Placement"
                }
               }
              },
              "description": "The placement, as numbers a spec takes."
             },
             "default": {
              "$ref": "#/components/responses/Problem"
             }
            },
            "summary": "Where the spec's photo starts in its window when it is placed automatically (`\"transform\": \"auto\"`: faces kept whole, else the most detail), why, and the window.\n"
           }
          },
          "/v1/previews": {
           "post": {
            "operationId": "preview",
            "parameters": [
             {
              "in": "query",
              "name": "side",
              "required": false,
              "schema": {
               "default": "front",
               "enum": [
                "front",
                "back"
               ],
               "type": "string"
              }
             }
            ],
            "requestBody": {
             "content": {
              "application/json": {
               "schema": {
                "$ref": "#/components/schemas/CardSpec"
               }
              }
             },
             "required": true
            },
            "responses": {
             "200": {
              "content": {
               "image/jpeg": {
                "schema": {
                 "contentMediaType": "image/jpeg",
                 "type": "string"
                }
               }
              },
              "description": "The sample JPEG, byte-identical to the `sample` file `cardrender render` writes."
             },
             "default": {
              "$ref": "#/components/responses/Problem"
             }
            },
            "summary": "The sample image of one side of a card, as the print renderer makes it."
           }
          },
          "/v1/print-runs": {
           "post": {
            "operationId": "createPrintRun",
            "requestBody": {
             "content": {
              "application/json": {
               "schema": {
                "$ref": "#/components/schemas/PrintRunOrder"
               }
              }
             },
             "required": true
            },
            "responses": {
             "201": {
              "content": {
               "application/json": {
                "schema": {
                 "$ref": "#/components/schemas/PrintRun"
                }
               }
              },
              "description": "The run.",
              "links": {
               "GetRun": {
                "operationId": "getPrintRun",
                "parameters": {
                 "id": "$response.body#/id"
                }
               }
              }
             },
             "default": {
              "$ref": "#/components/responses/Problem"
             }
            },
            "summary": "Impose and preflight every ready card of a press not yet printed; those cards become printed."
           }
          },
          "/v1/print-runs/{id}": {
           "get": {
            "operationId": "getPrintRun",
            "responses": {
             "200": {
              "content": {
               "application/json": {
                "schema": {
                 "$ref": "#/components/schemas/PrintRun"
                }
               }
              },
              "description": "The run."
             },
             "default": {
              "$ref": "#/components/responses/Problem"
             }
            },
            "summary": "A print run and its sheets."
           },
           "parameters": [
            {
             "in": "path",
             "name": "id",
             "required": true,
             "schema": {
              "maxLength": 100,
              "type": "string"
             }
            }
           ]
          },
          "/v1/print-runs/{id}/mailed": {
           "parameters": [
            {
             "in": "path",
             "name": "id",
             "required": true,
             "schema": {
              "maxLength": 100,
              "type": "string"
             }
            }
           ],
           "post": {
            "operationId": "mailPrintRun",
            "responses": {
             "200": {
              "content": {
               "application/json": {
                "schema": {
                 "$ref": "#/components/schemas/PrintRun"
                }
               }
              },
              "description": "The run, with the time it was mailed."
             },
             "default": {
              "$ref": "#/components/responses/Problem"
             }
            },
            "summary": "Record that the run was handed to the post; its printed cards become mailed (again changes nothing)."
           }
          },
          "/v1/print-runs/{id}/manifest.csv": {
           "get": {
            "operationId": "getPrintRunManifestCSV",
            "responses": {
             "200": {
              "content": {
               "text/csv": {
                "schema": {
                 "type": "string"
                }
               }
              },
              "description": "The manifest: sequence, card, country, postcode, mail_class, sheet, position."
             },
             "default": {
              "$ref": "#/components/responses/Problem"
             }
            },
            "summary": "The run's deposit manifest as CSV, one row per card in the run's order (docs/mail.md)."
           },
           "parameters": [
            {
             "in": "path",
             "name": "id",
             "required": true,
             "schema": {
              "maxLength": 100,
              "type": "string"
             }
            }
           ]
          },
          "/v1/print-runs/{id}/manifest.json": {
           "get": {
            "operationId": "getPrintRunManifestJSON",
            "responses": {
             "200": {
              "content": {
               "application/json": {
                "schema": {
                 "$ref": "#/components/schemas/DepositManifest"
                }
               }
              },
              "description": "The manifest."
             },
             "default": {
              "$ref": "#/components/responses/Problem"
             }
            },
            "summary": "The run's deposit manifest as JSON, with the counts per country and per French département."
           },
           "parameters": [
            {
             "in": "path",
             "name": "id",
             "required": true,
             "schema": {
              "maxLength": 100,
              "type": "string"
             }
            }
           ]
          },
          "/v1/print-runs/{id}/sheets/{sheet}": {
           "get": {
            "operationId": "getPrintRunSheet",
            "responses": {
             "200": {
              "content": {
               "application/pdf": {
                "schema": {
                 "contentMediaType": "application/pdf",
                 "type": "string"
                }
               }
              },
              "description": "The sheet."
             },
             "default": {
              "$ref": "#/components/responses/Problem"
             }
            },
            "summary": "One imposed, preflighted sheet file (PDF/X)."
           },
           "parameters": [
            {
             "in": "path",
             "name": "id",
             "required": true,
             "schema": {
              "maxLength": 100,
              "type": "string"
             }
            },
            {
             "in": "path",
             "name": "sheet",
             "required": true,
             "schema": {
              "maximum": 100000,
              "minimum": 1,
              "type": "integer"
             }
            }
           ]
          },
          "/v1/scans": {
           "post": {
            "operationId": "scanCard",
            "parameters": [
             {
              "description": "What the scan records.",
              "in": "query",
              "name": "outcome",
              "required": false,
              "schema": {
               "default": "returned",
               "enum": [
                "returned",
                "delivered"
               ],
               "type": "string"
              }
             }
            ],
            "requestBody": {
             "content": {
              "application/octet-stream": {
               "schema": {
                "contentMediaType": "application/octet-stream",
                "type": "string"
               }
              },
              "image/heic": {
               "schema": {
                "contentMediaType": "image/heic",
                "type": "string"
               }
              },
              "image/heif": {
               "schema": {
                "contentMediaType": "image/heif",
                "type": "string"
               }
              },
              "image/jpeg": {
               "schema": {
                "contentMediaType": "image/jpeg",
                "type": "string"
               }
              },
              "image/png": {
               "schema": {
                "contentMediaType": "image/png",
                "type": "string"
               }
              },
              "image/tiff": {
               "schema": {
                "contentMediaType": "image/tiff",
                "type": "string"
               }
              },
              "image/webp": {
               "schema": {
                "contentMediaType": "image/webp",
                "type": "string"
               }
              }
             },
             "required": true
            },
            "responses": {
             "200": {
              "content": {
               "application/json": {
                "schema": {
                 "$ref": "#/components/schemas/Card"
                }
               }
              },
              "description": "The card, with the scan's status and its time."
             },
             "default": {
              "$ref": "#/components/responses/Problem"
             }
            },
            "summary": "Record a card as returned to its sender (the default) or delivered, from a photo or scan of its back: the Data Matrix code on it is found, its signature checked, and the card (one of this key's, printed or mailed) takes the status, with its event. Scanning it again with the same outcome changes nothing. The body is the image's bytes.\n"
           }
          },
          "/v1/webhook-endpoints": {
           "get": {
            "operationId": "listWebhookEndpoints",
            "responses": {
             "200": {
              "content": {
               "application/json": {
                "schema": {
                 "$ref": "#/components/schemas/WebhookEndpointList"
                }
               }
              },
              "description": "The endpoints."
             },
             "default": {
              "$ref": "#/components/responses/Problem"
             }
            },
            "summary": "This key's endpoints, oldest first (without their secrets)."
           },
           "post": {
            "operationId": "createWebhookEndpoint",
            "requestBody": {
             "content": {
              "application/json": {
               "schema": {
                "$ref": "#/components/schemas/WebhookEndpointOrder"
               }
              }
             },
             "required": true
            },
            "responses": {
             "201": {
              "content": {
               "application/json": {
                "schema": {
                 "$ref": "#/components/schemas/WebhookEndpointWithSecret"
                }
               }
              },
              "description": "The endpoint, with its secret (shown this once)."
             },
             "default": {
              "$ref": "#/components/responses/Problem"
             }
            },
            "summary": "Add a URL that receives this key's events, signed (Standard Webhooks); its secret is shown once. The URL must be written as RFC 3986 allows, and is kept normalised; a key has at most 16 endpoints (409).\n"
           }
          },
          "/v1/webhook-endpoints/{id}": {
           "delete": {
            "operationId": "deleteWebhookEndpoint",
            "responses": {
             "204": {
              "description": "Removed."
             },
             "default": {
              "$ref": "#/components/responses/Problem"
             }
            },
            "summary": "Remove an endpoint; what was still to be sent to it is dropped."
           },
           "get": {
            "operationId": "getWebhookEndpoint",
            "responses": {
             "200": {
              "content": {
               "application/json": {
                "schema": {
                 "$ref": "#/components/schemas/WebhookEndpoint"
                }
               }
              },
              "description": "The endpoint."
             },
             "default": {
              "$ref": "#/components/responses/Problem"
             }
            },
            "summary": "An endpoint (without its secret)."
           },
           "parameters": [
            {
             "in": "path",
             "name": "id",
             "required": true,
             "schema": {
              "maxLength": 100,
              "type": "string"
             }
            }
           ]
          },
          "/v1/webhook-endpoints/{id}/replay": {
           "parameters": [
            {
             "in": "path",
             "name": "id",
             "required": true,
             "schema": {
              "maxLength": 100,
              "type": "string"
             }
            }
           ],
           "post": {
            "operationId": "replayWebhooks",
            "requestBody": {
             "content": {
              "application/json": {
               "schema": {
                "$ref": "#/components/schemas/ReplayOrder"
               }
              }
             },
             "required": true
            },
            "responses": {
             "202": {
              "content": {
               "application/json": {
                "schema": {
                 "$ref": "#/components/schemas/ReplayAnswer"
                }
               }
              },
              "description": "How many events are sent again."
             },
             "default": {
              "$ref": "#/components/responses/Problem"
             }
            },
            "summary": "Send this key's events since a time to the endpoint again (enabling it again if it was disabled): those delivered or given up; a pending one keeps its wait. Once a minute per endpoint (429 sooner).\n"
           }
          },
          "/v1/webhook-endpoints/{id}/secret": {
           "parameters": [
            {
             "in": "path",
             "name": "id",
             "required": true,
             "schema": {
              "maxLength": 100,
              "type": "string"
             }
            }
           ],
           "post": {
            "operationId": "rotateWebhookSecret",
            "responses": {
             "200": {
              "content": {
               "application/json": {
                "schema": {
                 "$ref": "#/components/schemas/WebhookEndpointWithSecret"
                }
               }
              },
              "description": "The endpoint, with its new secret."
             },
             "default": {
              "$ref": "#/components/responses/Problem"
             }
            },
            "summary": "A new secret, shown once; the old one keeps signing beside it for 24 hours."
           }
          }
         },
         "security": [
          {
           "apiKey": []
          }
         ]
        }
        """#
}
