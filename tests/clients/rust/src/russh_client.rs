//! One russh connection. Args: HOST PORT [USER KEYFILE COMMAND]. Without a key it connects and stops once the
//! key exchange has begun (what `sshbench clients record` reads); with one it logs in with that OpenSSH
//! private key, runs COMMAND, prints its output and exits 0 (1, with the error, on any failure).
use std::sync::Arc;

use russh::client;
use russh::keys::{load_secret_key, PrivateKeyWithHashAlg};

struct AnyHostKey;

impl client::Handler for AnyHostKey {
    type Error = russh::Error;

    async fn check_server_key(
        &mut self,
        _key: &russh::keys::PublicKeyOrCertificate,
    ) -> Result<bool, Self::Error> {
        Ok(true) // the tests' throwaway server; nothing to trust or distrust
    }
}

#[tokio::main]
async fn main() {
    let args: Vec<String> = std::env::args().collect();
    if let Err(err) = run(&args).await {
        eprintln!("russh-client: {err}");
        std::process::exit(1);
    }
}

async fn run(args: &[String]) -> Result<(), Box<dyn std::error::Error>> {
    let config = Arc::new(client::Config::default());
    let port: u16 = args[2].parse()?;
    let mut session = client::connect(config, (args[1].as_str(), port), AnyHostKey).await?;
    if args.len() < 6 {
        return Ok(());
    }
    let key = load_secret_key(&args[4], None)?;
    let hash = session.best_supported_rsa_hash().await?.flatten();
    let auth = session
        .authenticate_publickey(args[3].as_str(), PrivateKeyWithHashAlg::new(Arc::new(key), hash))
        .await?;
    if !auth.success() {
        return Err("public key refused".into());
    }
    let mut channel = session.channel_open_session().await?;
    channel.exec(true, args[5].as_str()).await?;
    let mut output = Vec::new();
    while let Some(message) = channel.wait().await {
        if let russh::ChannelMsg::Data { data } = message {
            output.extend_from_slice(&data);
        }
    }
    print!("{}", String::from_utf8_lossy(&output));
    Ok(())
}
