//! Hostile inputs the tests generate (never stored): reproducers of the attacks the
//! decoders must refuse with a sentence, not a crash.

fn varint(mut v: usize, out: &mut Vec<u8>) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

fn varint_len(v: usize) -> usize {
    let mut b = Vec::new();
    varint(v, &mut b);
    b.len()
}

/// An export request whose one span has an attribute value nested `levels` kvlists
/// deep, written outside-in from the sizes (no recursion, linear time).
pub fn deep_request(levels: usize) -> Vec<u8> {
    // (bytes before the child, the child's field tag), outermost first.
    let mut chain: Vec<(Vec<u8>, u8)> = vec![
        (vec![], 0x0a),              // request.resource_spans (1)
        (vec![], 0x12),              // resource_spans.scope_spans (2)
        (vec![], 0x12),              // scope_spans.spans (2)
        (vec![0x2a, 1, b's'], 0x4a), // span: name "s"; attributes (9)
        (vec![0x0a, 1, b'a'], 0x12), // key_value: key "a"; value (2)
    ];
    for _ in 0..levels {
        chain.push((vec![], 0x32)); // any_value.kvlist_value (6)
        chain.push((vec![], 0x0a)); // key_value_list.values (1)
        chain.push((vec![0x0a, 1, b'k'], 0x12)); // key_value: key "k"; value (2)
    }
    let leaf = vec![0x0a, 1, b'x']; // any_value.string_value "x"
    let mut sizes = vec![0usize; chain.len() + 1];
    sizes[chain.len()] = leaf.len();
    for i in (0..chain.len()).rev() {
        let child = sizes[i + 1];
        sizes[i] = chain[i].0.len() + 1 + varint_len(child) + child;
    }
    let mut out = Vec::with_capacity(sizes[0]);
    for (i, (prefix, tag)) in chain.iter().enumerate() {
        out.extend_from_slice(prefix);
        out.push(*tag);
        varint(sizes[i + 1], &mut out);
    }
    out.extend_from_slice(&leaf);
    out
}
