//! Noticing that a stream's client hung up while nothing is being sent to it: a socket the
//! client closed is otherwise found only by the next write (the heartbeat, up to 15 s later),
//! and holds its place among the bounded streams until then.

/// The connection a stream is sent on, by its descriptor.
#[derive(Clone, Copy, Debug)]
pub struct Peer {
    #[cfg_attr(not(unix), allow(dead_code))]
    fd: i32,
}

impl Peer {
    /// `fd` must be the descriptor of the connection the stream is answered on.
    pub fn new(fd: i32) -> Peer {
        Peer { fd }
    }

    /// True once the client has closed its end (or the connection broke). A peek: nothing is
    /// read, so a request the client sent meanwhile is still there for the server.
    pub fn hung_up(&self) -> bool {
        #[cfg(unix)]
        {
            let mut byte = [0u8; 1];
            // SAFETY: a one-byte buffer that lives across the call. The descriptor is the
            // stream's connection for as long as the stream's body is held; should the
            // connection be gone and the number reused, the peek consumes nothing, and the
            // stream ends, which it must anyway.
            let n = unsafe {
                libc::recv(
                    self.fd,
                    byte.as_mut_ptr().cast(),
                    1,
                    libc::MSG_PEEK | libc::MSG_DONTWAIT,
                )
            };
            match n {
                0 => true,
                n if n > 0 => false,
                _ => {
                    let e = std::io::Error::last_os_error();
                    !matches!(
                        e.kind(),
                        std::io::ErrorKind::WouldBlock | std::io::ErrorKind::Interrupted
                    )
                }
            }
        }
        #[cfg(not(unix))]
        false
    }
}
