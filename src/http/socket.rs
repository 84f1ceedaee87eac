//! Bounds on what a stream's socket may hold in the kernel. A stream's frames are bounded
//! inside the process, but a client that stops reading lets the kernel queue up to its
//! autotuned send buffer (4 MiB on Linux) per socket first; a small fixed buffer and a write
//! deadline (`TCP_USER_TIMEOUT`, which also covers a receiver that keeps its window shut) bound
//! the bytes and drop the client in a stated time.

use std::{any::Any, time::Duration};

use actix_web::{dev::Extensions, HttpRequest};

use crate::notify::peer::Peer;

/// Bytes asked for a stream socket's send buffer (Linux doubles it for its bookkeeping): a few
/// frames of a busy game, far below the default's ceiling.
pub const STREAM_SEND_BUFFER: usize = 16 * 1024;

/// The descriptor of the connection a request came on, kept when the connection opens.
#[derive(Clone, Copy, Debug)]
struct ConnectionSocket(i32);

/// `HttpServer::on_connect`: remembers the connection's descriptor for [`bound_for_stream`].
pub fn remember(connection: &dyn Any, data: &mut Extensions) {
    #[cfg(unix)]
    if let Some(tcp) = connection.downcast_ref::<actix_web::rt::net::TcpStream>() {
        use std::os::fd::AsRawFd;
        data.insert(ConnectionSocket(tcp.as_raw_fd()));
    }
    #[cfg(not(unix))]
    let _ = (connection, data);
}

/// Shrinks the send buffer of the request's connection and gives it a write deadline: a
/// client that has not taken its bytes for `drop_after` is disconnected by the kernel.
/// Best effort: a failure is logged and the stream goes on unbounded in the kernel. Returns
/// the connection, for the stream to notice a hang-up.
pub fn bound_for_stream(req: &HttpRequest, drop_after: Duration) -> Option<Peer> {
    let socket = req.conn_data::<ConnectionSocket>().copied()?;
    #[cfg(target_os = "linux")]
    {
        let buffer = i32::try_from(STREAM_SEND_BUFFER).unwrap_or(i32::MAX);
        let deadline = u32::try_from(drop_after.as_millis()).unwrap_or(u32::MAX);
        let set = |level, name, value: &[u8]| {
            let len = libc::socklen_t::try_from(value.len()).unwrap_or(0);
            // SAFETY: the descriptor is the connection this request arrived on, open for as
            // long as the request is handled; the value is a live buffer of `len` bytes.
            unsafe { libc::setsockopt(socket.0, level, name, value.as_ptr().cast(), len) == 0 }
        };
        if !set(libc::SOL_SOCKET, libc::SO_SNDBUF, &buffer.to_ne_bytes())
            || !set(
                libc::IPPROTO_TCP,
                libc::TCP_USER_TIMEOUT,
                &deadline.to_ne_bytes(),
            )
        {
            tracing::warn!(error = %std::io::Error::last_os_error(), "cannot bound a stream's socket");
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = drop_after;
    Some(Peer::new(socket.0))
}
