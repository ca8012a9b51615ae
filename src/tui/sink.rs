//! How a worker of the explorer hands over what it has, without knowing who takes it: the
//! event loop gives each worker a sink that turns its events into messages.

use std::sync::Arc;

/// Where a worker delivers what it has: false once nobody listens any more.
pub type Sink<T> = Arc<dyn Fn(T) -> bool + Send + Sync>;
