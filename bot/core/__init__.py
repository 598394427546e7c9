"""The serving core every chat platform plugs into: inbound messages in, outbound events out."""
