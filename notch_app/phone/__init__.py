"""Answer from your phone: Notch serves a small page on the local network, over TLS, to
the phones paired with it in person (a QR code in Settings or `notch phone pair`).

A waiting card also shows on a paired phone (headline, the facts that matter, what will
run; approve, decline or words for the agent; edits stay on the desktop). Every answer is
signed by the key the phone made at pairing (WebCrypto, ECDSA P-256, never leaving it),
bound to the card's callId, its argument digest and a nonce Notch issued for that card
and that phone, used once. A client of the service, like the overlay: Qt-free, composed
by the app (`notch_app.app`). See docs/phone.md.

- `devices`: the paired phones and the one-time pairing codes (files beside the store)
- `tls`: the install's self-signed certificate and its fingerprint (pinned by the QR)
- `pairing`: the URL and QR code a phone scans, and this machine's local addresses
- `signatures`: checking an answer's ECDSA P-256 signature
- `cards`: what of a request the phone is shown (never a secret value)
- `watch`: the presenter between the service and the overlay that tells the page
- `server`: the HTTPS page and its API
"""
