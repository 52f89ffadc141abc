//! One libssh2 connection through the ssh2 crate (libssh2 built from its bundled source: a newer release than
//! Debian 12's 1.10). Args: HOST PORT: it connects and starts the key exchange (what `sshbench clients record`
//! reads), then stops. Its banner (SSH-2.0-libssh2_VERSION) says which libssh2 it is.
use std::net::TcpStream;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let stream = match TcpStream::connect((args[1].as_str(), args[2].parse::<u16>().unwrap_or(22))) {
        Ok(stream) => stream,
        Err(err) => {
            eprintln!("libssh2-client: {err}");
            std::process::exit(1);
        }
    };
    let mut session = ssh2::Session::new().expect("a libssh2 session");
    session.set_tcp_stream(stream);
    session.set_timeout(20_000);
    if let Err(err) = session.handshake() {
        eprintln!("libssh2-client: {err}");
    }
}
