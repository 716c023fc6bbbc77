//! A learned second opinion on wording (issue #43): a logistic regression over a text's
//! words, word pairs, the rules' signals and where the text sits, trained on the tune
//! split of the drift corpus only (real servers' strings against poisoning texts; the
//! trainer is `text_model_is_the_one_the_tune_split_trains` in udfs/tests/drift_corpus.rs,
//! which also checks the committed weights are what it trains). Alone it only warns. It
//! blocks only a text the rules already warn on for a sensitive target (a credential's
//! place, the conversation, the user's or another tool's data, or a credential or an
//! outside address with data moving to it in one sentence), when it is sure that text is
//! an instruction: the issue's two signals, one read by the rules, one learned.

use std::collections::{BTreeMap, HashMap};
use std::sync::LazyLock;

/// The weights, as `text_model.tsv` holds them.
pub struct Model {
    pub bias: f64,
    /// The probability from which a text is flagged (chosen on held-out folds of the
    /// tune split, see the trainer).
    pub threshold: f64,
    /// The probability from which a text the rules warn on for a sensitive target is
    /// blocked (chosen on held-out folds too; never, if the file has none).
    pub block: f64,
    pub weights: HashMap<String, f64>,
}

static MODEL: LazyLock<Model> = LazyLock::new(|| {
    Model::parse(include_str!("text_model.tsv")).expect("the committed text model")
});

/// Whether `word` is one of the name words or an inflection of one (`search`, `searches`;
/// `docs`, `documentation`): a common start of at least 3 letters, all but at most one of
/// the name word's.
fn named(word: &str, names: &[String]) -> bool {
    names.iter().any(|n| {
        let common = word
            .chars()
            .zip(n.chars())
            .take_while(|(a, b)| a == b)
            .count();
        common >= 3 && common + 1 >= n.chars().count()
    })
}

/// The committed model.
pub fn model() -> &'static Model {
    &MODEL
}

static TOKEN: LazyLock<regex::Regex> =
    LazyLock::new(|| regex::Regex::new(r"[\p{L}\p{N}]+").expect("the token pattern"));

/// Scripts written without spaces between words: read as character pairs.
fn unspaced(c: char) -> bool {
    matches!(c as u32,
        0x3040..=0x30FF | 0x3400..=0x4DBF | 0x4E00..=0x9FFF | 0xAC00..=0xD7AF | 0xF900..=0xFAFF)
}

/// The features of a text the rules have read: `clean` is the text as the rules read it
/// (normalized, identifiers split, obfuscation undone), `kind` the kind of place it sits
/// in, `signals` the names of what the rules found, `own` and `others` the words of the
/// names of its tool and of the other tools (the caller, `text`, knows all of these).
/// Features: `w:` a word (digits as 0), `b:` two words in a row, `s:` a signal, `k:` the
/// kind of place. Each once. A word of the tool's own name is `@own` and of another
/// tool's `@other`: what a tool is about is no sign of an attack (and the poisoning
/// corpus sits mostly in one documentation-search tool, whose topic would be learned).
pub fn features(
    clean: &str,
    kind: &str,
    signals: &[&str],
    own: &[String],
    others: &[String],
) -> Vec<String> {
    let mut words: Vec<String> = Vec::new();
    for m in TOKEN.find_iter(clean) {
        let t: String = m
            .as_str()
            .chars()
            .map(|c| if c.is_ascii_digit() { '0' } else { c })
            .collect();
        if named(&t, own) {
            words.push("@own".into());
        } else if named(&t, others) {
            words.push("@other".into());
        } else if t.chars().any(unspaced) {
            let cs: Vec<char> = t.chars().collect();
            if cs.len() == 1 {
                words.push(t);
            }
            for p in cs.windows(2) {
                words.push(p.iter().collect());
            }
        } else {
            words.push(t);
        }
    }
    let mut out: Vec<String> = words.iter().map(|w| format!("w:{w}")).collect();
    out.extend(words.windows(2).map(|p| format!("b:{} {}", p[0], p[1])));
    out.extend(signals.iter().map(|s| format!("s:{s}")));
    out.push(format!("k:{kind}"));
    out.sort();
    out.dedup();
    out
}

impl Model {
    /// The probability that the text of these features is poisoning.
    pub fn score(&self, features: &[String]) -> f64 {
        let z: f64 = self.bias
            + features
                .iter()
                .filter_map(|f| self.weights.get(f))
                .sum::<f64>();
        1.0 / (1.0 + (-z).exp())
    }

    pub fn flags(&self, features: &[String]) -> bool {
        self.score(features) >= self.threshold
    }

    pub fn blocks(&self, features: &[String]) -> bool {
        self.score(features) >= self.block
    }

    pub fn parse(text: &str) -> Result<Self, String> {
        let mut m = Model {
            bias: 0.0,
            threshold: 1.0,
            block: f64::INFINITY,
            weights: HashMap::new(),
        };
        for (i, line) in text.lines().enumerate() {
            if line.starts_with('#') || line.is_empty() {
                continue;
            }
            let (k, v) = line
                .rsplit_once('\t')
                .ok_or_else(|| format!("text model line {}: no tab", i + 1))?;
            let v: f64 = v
                .parse()
                .map_err(|e| format!("text model line {}: {e}", i + 1))?;
            match k {
                "bias" => m.bias = v,
                "threshold" => m.threshold = v,
                "block" => m.block = v,
                _ => {
                    m.weights.insert(k.to_string(), v);
                }
            }
        }
        Ok(m)
    }

    /// The file: a header, bias and thresholds, then the weights by feature (sorted, so
    /// the same training gives the same bytes).
    pub fn to_tsv(&self, header: &str) -> String {
        let mut out = String::new();
        for l in header.lines() {
            out.push_str(&format!("# {l}\n"));
        }
        out.push_str(&format!(
            "bias\t{:.4}\nthreshold\t{:.4}\n",
            self.bias, self.threshold
        ));
        if self.block.is_finite() {
            out.push_str(&format!("block\t{:.4}\n", self.block));
        }
        let sorted: BTreeMap<&String, &f64> = self.weights.iter().collect();
        for (k, v) in sorted {
            out.push_str(&format!("{k}\t{v:.4}\n"));
        }
        out
    }
}

/// How to train: rounds of full-batch proximal AdaGrad on the class-balanced log loss,
/// the step, the L1 weight (sparse weights: a small file) and the fewest examples a
/// feature must appear in.
#[derive(Debug, Clone, Copy)]
pub struct Training {
    pub rounds: usize,
    pub step: f64,
    pub l1: f64,
    pub min_count: usize,
}

impl Default for Training {
    fn default() -> Self {
        Self {
            // Chosen on the out-of-fold scores of the tune part (docs/drift.md).
            rounds: 1000,
            step: 0.5,
            l1: 5e-4,
            min_count: 2,
        }
    }
}

/// Trains on (features, is poisoning) with `threshold` as the model's (and no block
/// threshold: the caller sets `block`). Deterministic: the same examples in the same order
/// give the same weights.
pub fn train(examples: &[(Vec<String>, bool)], t: Training, threshold: f64) -> Model {
    let mut count: BTreeMap<&str, usize> = BTreeMap::new();
    for (f, _) in examples {
        for x in f {
            *count.entry(x.as_str()).or_default() += 1;
        }
    }
    let names: Vec<&str> = count
        .iter()
        .filter(|(_, n)| **n >= t.min_count)
        .map(|(k, _)| *k)
        .collect();
    let index: HashMap<&str, usize> = names.iter().enumerate().map(|(i, k)| (*k, i)).collect();
    let rows: Vec<Vec<usize>> = examples
        .iter()
        .map(|(f, _)| {
            f.iter()
                .filter_map(|x| index.get(x.as_str()).copied())
                .collect()
        })
        .collect();
    let pos = examples.iter().filter(|(_, y)| *y).count().max(1) as f64;
    let neg = (examples.len() as f64 - pos).max(1.0);
    // Each class weighs half of the loss.
    let weight = |y: bool| if y { 0.5 / pos } else { 0.5 / neg };
    let (mut w, mut b) = (vec![0.0f64; names.len()], 0.0f64);
    let (mut gw, mut gb) = (vec![0.0f64; names.len()], 0.0f64);
    let mut grad = vec![0.0f64; names.len()];
    for _ in 0..t.rounds {
        grad.iter_mut().for_each(|g| *g = 0.0);
        let mut db = 0.0;
        for (row, (_, y)) in rows.iter().zip(examples) {
            let z = b + row.iter().map(|&i| w[i]).sum::<f64>();
            let p = 1.0 / (1.0 + (-z).exp());
            let e = weight(*y) * (p - if *y { 1.0 } else { 0.0 });
            db += e;
            for &i in row {
                grad[i] += e;
            }
        }
        gb += db * db;
        b -= t.step * db / (gb.sqrt() + 1e-12);
        for i in 0..w.len() {
            if grad[i] == 0.0 && w[i] == 0.0 {
                continue;
            }
            gw[i] += grad[i] * grad[i];
            let rate = t.step / (gw[i].sqrt() + 1e-12);
            let v = w[i] - rate * grad[i];
            let shrink = rate * t.l1;
            w[i] = v.signum() * (v.abs() - shrink).max(0.0);
        }
    }
    Model {
        bias: b,
        threshold,
        block: f64::INFINITY,
        weights: names
            .iter()
            .zip(&w)
            // Below the file's precision a weight is nothing.
            .filter(|(_, v)| v.abs() >= 5e-5)
            .map(|(k, v)| (k.to_string(), *v))
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn learns_separable_words_and_round_trips_its_file() {
        let ex = |w: &str, y| (vec![format!("w:{w}"), "k:prose".to_string()], y);
        let examples: Vec<_> = (0..20)
            .flat_map(|_| [ex("search", false), ex("exfiltrate", true)])
            .collect();
        let mut m = train(&examples, Training::default(), 0.5);
        m.block = 0.9;
        assert!(m.flags(&["w:exfiltrate".into(), "k:prose".into()]));
        assert!(!m.flags(&["w:search".into(), "k:prose".into()]));
        let back = Model::parse(&m.to_tsv("a test")).unwrap();
        assert_eq!(back.to_tsv("a test"), m.to_tsv("a test"));
        assert!(back.flags(&["w:exfiltrate".into()]) == m.flags(&["w:exfiltrate".into()]));
        assert_eq!(back.block, 0.9);
    }

    #[test]
    fn words_of_unspaced_scripts_are_read_as_character_pairs() {
        let f = features("读取 密码 v2", "prose", &["Secret"], &[], &[]);
        assert_eq!(
            f,
            [
                "b:密码 v0",
                "b:读取 密码",
                "k:prose",
                "s:Secret",
                "w:v0",
                "w:密码",
                "w:读取"
            ]
        );
    }
}
