//! What `serve` does about clients that do not read their answers: a
//! write deadline on every connection ([`WriteDeadline`]) and a budget of
//! bytes for large answers in flight ([`SendBudget`]).
//!
//! A client that asks for a large document and never reads it holds the
//! answer in the server's memory (hyper's buffer, and what the socket
//! cannot take) and a connection slot, for as long as the connection
//! lives: 530 such clients asking for a 3.5 MB document held 2 GB and
//! every slot, and nothing else was answered (issue 47). So:
//!
//! * **Write deadline.** A write that makes no progress for
//!   [`WRITE_TIMEOUT`] (the client accepts not one byte) fails, and hyper
//!   closes the connection: its slot and its buffers are freed, and the
//!   socket is reset (`SO_LINGER` 0), so that what the kernel still
//!   holds for it goes too rather than stay queued for a client that
//!   takes nothing. A client that reads, however slowly, is not cut; its
//!   answer is bounded by the budget below.
//! * **The kernel's share.** Each accepted socket's send buffer is set
//!   to [`SEND_BUFFER`] bytes (Linux doubles it), instead of growing to
//!   4 MiB: what the kernel holds for clients that do not read is then
//!   bounded too (measured: 74 stalled clients held 2.8 MB each there,
//!   207 MB, outside any budget of ours). Enough for a loopback or a
//!   local network; a far client on a fast link is slowed (a 512 KiB
//!   window over 100 ms is 5 MB/s).
//! * **Budget.** An answer of more than [`SMALL_ANSWER`] bytes is sent only
//!   while the answers of that size being sent hold, together, at most
//!   `--send-budget` MiB ([`SEND_BUDGET_MIB`] by default); one more is
//!   answered 503 (retry later) at once, its bytes dropped. An answer
//!   larger than the whole budget is sent alone. An answer
//!   holds its share until hyper has taken all but its last chunk (it is
//!   handed over [`CHUNK`] bytes at a time, as the socket drains); hyper
//!   itself holds at most [`MAX_BUF`] bytes of a connection. Small answers
//!   (a query's hits, a page, the index's figures) need no budget: slow
//!   readers of large documents never stop them.
//!
//! A handler that knows its answer will be large (a document: its size
//! is in the index) takes its share before it builds the answer
//! ([`SendBudget::reserve`]) and hands it on with the answer
//! ([`Reserved`]): refused at once, a client asking again and again for a
//! document it never reads costs the server a lookup, not the building
//! of megabytes of JSON each time (which, at 30 requests a second, took
//! the processor from the small queries).
//!
//! Memory for answers is then at most the budget, plus [`MAX_BUF`] +
//! [`CHUNK`] per connection (at most `MAX_CONNECTIONS`), plus the
//! answers being built (at most `MAX_WORK` queries, and the documents
//! being read). Measured with 500 clients that never read
//! (`bench/serve_load.py --slow-readers 500`, BENCHMARKS.md).

use hyper::body::{Body, Bytes, Frame, SizeHint};
use std::io;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

/// How long a write may wait for the client to take a byte.
pub const WRITE_TIMEOUT: Duration = Duration::from_secs(30);

/// Answers of more bytes than this count against the budget.
pub const SMALL_ANSWER: usize = 64 << 10;

/// The default budget of large answers in flight, in MiB.
pub const SEND_BUDGET_MIB: u64 = 256;

/// Bytes of a large answer handed to hyper at a time.
pub const CHUNK: usize = 16 << 10;

/// hyper's buffer per connection (read and write), in bytes.
pub const MAX_BUF: usize = 64 << 10;

/// The send buffer of each accepted socket, in bytes (`SO_SNDBUF`).
pub const SEND_BUFFER: usize = 256 << 10;

/// Set an accepted socket's send buffer to [`SEND_BUFFER`] (best effort:
/// a failure leaves the system's).
pub fn bound_send_buffer(stream: &tokio::net::TcpStream) {
    let _ = socket2::SockRef::from(stream).set_send_buffer_size(SEND_BUFFER);
}

/// A connection whose writes fail once the client has taken nothing for
/// the deadline (see the module docs). Reads are as they are: hyper's
/// head timeout and the body timeout bound them.
pub struct WriteDeadline<S: Abort> {
    inner: S,
    timeout: Duration,
    /// Set while a write (or flush) is waiting for the client.
    stalled: Option<Pin<Box<tokio::time::Sleep>>>,
}

/// A connection that can be reset (see [`WriteDeadline`]).
pub trait Abort {
    /// Make the close a reset, dropping what is queued.
    fn abort(&self);
}

impl Abort for tokio::net::TcpStream {
    fn abort(&self) {
        let _ = self.set_zero_linger();
    }
}

impl<S: Abort> WriteDeadline<S> {
    /// `inner`, its writes limited to `timeout` without progress.
    pub fn new(inner: S, timeout: Duration) -> WriteDeadline<S> {
        WriteDeadline { inner, timeout, stalled: None }
    }

    /// What a write returns: its result if it made progress (the clock
    /// stops), else pending until the deadline, then an error.
    fn deadline<T>(&mut self, cx: &mut Context<'_>, polled: Poll<io::Result<T>>) -> Poll<io::Result<T>> {
        if polled.is_ready() {
            self.stalled = None;
            return polled;
        }
        let timeout = self.timeout;
        let sleep = self.stalled.get_or_insert_with(|| Box::pin(tokio::time::sleep(timeout)));
        match sleep.as_mut().poll(cx) {
            Poll::Ready(()) => {
                self.inner.abort();
                Poll::Ready(Err(io::Error::new(
                    io::ErrorKind::TimedOut,
                    format!("the client took nothing for {} s", timeout.as_secs()),
                )))
            }
            Poll::Pending => Poll::Pending,
        }
    }
}

use std::future::Future as _;

impl<S: AsyncRead + Abort + Unpin> AsyncRead for WriteDeadline<S> {
    fn poll_read(self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().inner).poll_read(cx, buf)
    }
}

impl<S: AsyncWrite + Abort + Unpin> AsyncWrite for WriteDeadline<S> {
    fn poll_write(self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        let polled = Pin::new(&mut this.inner).poll_write(cx, buf);
        this.deadline(cx, polled)
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        let polled = Pin::new(&mut this.inner).poll_write_vectored(cx, bufs);
        this.deadline(cx, polled)
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        let polled = Pin::new(&mut this.inner).poll_flush(cx);
        this.deadline(cx, polled)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        let polled = Pin::new(&mut this.inner).poll_shutdown(cx);
        this.deadline(cx, polled)
    }
}

/// The bytes of large answers in flight (see the module docs), in KiB.
#[derive(Clone)]
pub struct SendBudget {
    kib: Arc<Semaphore>,
    mib: u64,
}

impl SendBudget {
    /// A budget of `mib` MiB.
    pub fn new(mib: u64) -> SendBudget {
        let kib = usize::try_from(mib.saturating_mul(1024)).unwrap_or(usize::MAX).min(Semaphore::MAX_PERMITS);
        SendBudget { kib: Arc::new(Semaphore::new(kib)), mib }
    }

    /// The budget, in MiB.
    pub fn mib(&self) -> u64 {
        self.mib
    }

    /// An answer of `bytes` to send: `Ok(None)` when it is small,
    /// `Ok(Some(share))` when the budget has room (the share goes with the
    /// answer's body, [`Chunked`]), `Err(())` when it has none.
    pub fn take(&self, bytes: usize) -> Result<Option<OwnedSemaphorePermit>, ()> {
        if bytes <= SMALL_ANSWER {
            return Ok(None);
        }
        // An answer larger than the whole budget takes all of it: sent
        // alone, never refused for ever.
        let total = self.mib.saturating_mul(1024);
        let kib = u32::try_from((bytes.div_ceil(1024) as u64).min(total)).unwrap_or(u32::MAX);
        self.kib.clone().try_acquire_many_owned(kib).map(Some).map_err(|_| ())
    }
}

/// The share of the budget taken for an answer before it was built, in
/// the answer's extensions: the answer is sent with it rather than with
/// a share taken after ([`SendBudget::take`]).
#[derive(Clone)]
pub struct Reserved(pub Arc<std::sync::Mutex<Option<OwnedSemaphorePermit>>>);

impl Reserved {
    /// The share, taken out (once).
    pub fn share(&self) -> Option<OwnedSemaphorePermit> {
        self.0.lock().ok()?.take()
    }
}

impl SendBudget {
    /// For an answer of about `bytes` not yet built: `Ok(None)` when it
    /// is small, `Ok(Some(reserved))` when the budget has room (put it in
    /// the answer's extensions), `Err(())` when it has none.
    pub fn reserve(&self, bytes: usize) -> Result<Option<Reserved>, ()> {
        Ok(self.take(bytes)?.map(|share| Reserved(Arc::new(std::sync::Mutex::new(Some(share))))))
    }
}

/// A large answer's bytes, handed to hyper [`CHUNK`] at a time (copies,
/// so that the answer is freed with its share), holding its share of the
/// budget until the last chunk is taken.
pub struct Chunked {
    bytes: Bytes,
    share: Option<OwnedSemaphorePermit>,
}

impl Chunked {
    /// `bytes`, holding `share`.
    pub fn new(bytes: Bytes, share: OwnedSemaphorePermit) -> Chunked {
        Chunked { bytes, share: Some(share) }
    }
}

impl Body for Chunked {
    type Data = Bytes;
    type Error = std::convert::Infallible;

    fn poll_frame(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<Option<Result<Frame<Bytes>, Self::Error>>> {
        let this = self.get_mut();
        if this.bytes.is_empty() {
            this.share = None;
            return Poll::Ready(None);
        }
        // A copy, not a slice: a chunk hyper still holds must not keep the
        // whole answer alive once its share is given back.
        let n = this.bytes.len().min(CHUNK);
        let chunk = Bytes::copy_from_slice(&this.bytes[..n]);
        this.bytes = this.bytes.slice(n..);
        if this.bytes.is_empty() {
            this.bytes = Bytes::new();
            this.share = None;
        }
        Poll::Ready(Some(Ok(Frame::data(chunk))))
    }

    fn is_end_stream(&self) -> bool {
        self.bytes.is_empty()
    }

    fn size_hint(&self) -> SizeHint {
        SizeHint::with_exact(self.bytes.len() as u64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_answers_need_no_budget_and_large_ones_share_it() {
        let budget = SendBudget::new(1);
        assert!(matches!(budget.take(SMALL_ANSWER), Ok(None)));
        let first = budget.take(600 << 10).unwrap();
        assert!(first.is_some());
        assert!(budget.take(600 << 10).is_err(), "1 MiB holds one answer of 600 KiB");
        drop(first);
        assert!(budget.take(600 << 10).unwrap().is_some());
        let alone = SendBudget::new(1);
        assert!(alone.take(5 << 20).unwrap().is_some(), "larger than the budget: sent alone");
    }

    #[test]
    fn a_large_answer_is_handed_over_in_chunks_and_frees_its_share_with_the_last() {
        let budget = SendBudget::new(1);
        let share = budget.take(100 << 10).unwrap().unwrap();
        let mut body = Chunked::new(Bytes::from(vec![7u8; (100 << 10) + 5]), share);
        let waker = std::task::Waker::noop();
        let mut cx = Context::from_waker(waker);
        let mut sizes = Vec::new();
        while let Poll::Ready(Some(Ok(frame))) = Pin::new(&mut body).poll_frame(&mut cx) {
            sizes.push(frame.into_data().unwrap().len());
            if !body.is_end_stream() {
                assert!(budget.take(1000 << 10).is_err(), "the share is held until the last chunk");
            }
        }
        assert_eq!(sizes.iter().sum::<usize>(), (100 << 10) + 5);
        assert!(sizes.iter().all(|&n| n <= CHUNK));
        assert!(budget.take(1000 << 10).unwrap().is_some(), "the share came back");
    }
}
