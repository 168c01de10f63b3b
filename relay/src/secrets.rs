//! Passwords as the relay and its tools take them: from the first line of a file, or from an
//! environment variable; never from a flag's value, which shows in `ps` and in shell history.

/// A password from the first line of `file`, or else from the environment variable `env`;
/// `None` when neither gives one. Passwords never come from a flag's value: a flag shows in
/// `ps` and in shell history.
pub fn read(
    file: Option<&std::path::Path>,
    env: &str,
) -> anyhow::Result<Option<protocol::secret::Secret>> {
    use anyhow::Context;
    let secret = match file {
        Some(path) => {
            let text = std::fs::read_to_string(path)
                .with_context(|| format!("reading {}", path.display()))?;
            let first = text.lines().next().unwrap_or_default().to_owned();
            anyhow::ensure!(
                !first.is_empty(),
                "{}: the first line is empty",
                path.display()
            );
            Some(first)
        }
        None => std::env::var(env).ok().filter(|v| !v.is_empty()),
    };
    Ok(secret.map(protocol::secret::Secret::new))
}

/// A random id of `len` characters of `[a-z0-9]` (5.17 bits each): ten make a link nobody
/// guesses in its lifetime, more make a secret token.
pub fn random_id(len: usize) -> String {
    use rand::Rng;
    const ALPHABET: &[u8] = b"abcdefghijklmnopqrstuvwxyz0123456789";
    let mut rng = rand::rng();
    (0..len)
        .map(|_| ALPHABET[rng.random_range(0..ALPHABET.len())] as char)
        .collect()
}

/// The hex SHA-256 of a token: what the store keeps of a management or session token.
pub fn token_hash(token: &str) -> String {
    use sha2::{Digest, Sha256};
    Sha256::digest(token.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}
