// Package codec holds the byte encodings the project's SQLite stores share:
// DEFLATE with reused compressors (Deflate), and varint-framed fields
// (Encoder, Decoder). The run store, the model cache and the gold cache
// frame their values with these; what a value holds and the bytes that
// mark its format stay with each store, whose format tests pin them.
package codec
