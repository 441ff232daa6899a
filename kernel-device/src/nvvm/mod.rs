//! libnvvm, loaded at run time. (Stub: being written.)
