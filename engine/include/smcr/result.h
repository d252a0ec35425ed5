// Errors as values at module borders: every fallible engine API returns
// smcr::Result<T> (a small std::expected, which C++20 lacks) carrying an
// Error with an enum class code and a message naming what went wrong.
#pragma once

#include <cassert>
#include <string>
#include <utility>
#include <variant>

namespace smcr {

enum class Errc {
    invalid = 0,        // never a valid code: a default-constructed Error is a bug
    malformed,          // bytes on the wire do not parse (message names the field)
    notSupported,       // the backend or peer lacks the operation
    invalidArgument,    // caller passed an out-of-range or inconsistent value
    invalidState,       // operation not allowed in the object's current state
    outOfResources,     // queue full, no buffer, too many connections
    wouldBlock,         // non-blocking call could not proceed
    timedOut,           // a protocol or transport timer expired
    connectionRefused,  // the peer is not there
    connectionReset,    // the peer aborted (RST / abnormal close)
    connectionAborted,  // the local link group or QP failed
    closed,             // the object was closed
    accessDenied,       // rkey / permission / token check failed
    notFound,           // name or key does not exist
    protocolViolation,  // the peer broke the protocol
    declined,           // the peer sent a CLC decline
    systemError,        // an OS call failed (message carries errno text)
};

// Fatal errors end the connection or link; the others leave it usable.
constexpr bool isFatal(Errc code) {
    switch (code) {
        case Errc::connectionReset:
        case Errc::connectionAborted:
        case Errc::protocolViolation:
        case Errc::closed:
            return true;
        default:
            return false;
    }
}

const char* errcName(Errc code);

struct Error {
    Errc code = Errc::invalid;
    std::string message;
    int sysErrno = 0;  // errno when code == systemError, else 0

    std::string toString() const;
};

Error makeError(Errc code, std::string message);
// Captures errno at the call site into a systemError naming the failed call.
Error makeSystemError(const std::string& what, int err);

// Tag so a Result<T> can be built from an Error without ambiguity.
struct Unexpected {
    Error error;
};
inline Unexpected fail(Errc code, std::string message) {
    return {makeError(code, std::move(message))};
}
inline Unexpected fail(Error error) {
    return {std::move(error)};
}

template <typename T>
class [[nodiscard]] Result {
public:
    Result(T value) : m_state(std::in_place_index<0>, std::move(value)) {}
    Result(Unexpected u) : m_state(std::in_place_index<1>, std::move(u.error)) {}

    bool ok() const { return m_state.index() == 0; }
    explicit operator bool() const { return ok(); }

    T& value() & {
        assert(ok());
        return std::get<0>(m_state);
    }
    const T& value() const& {
        assert(ok());
        return std::get<0>(m_state);
    }
    // By value, so `for (auto& x : makeResult().value())` cannot dangle.
    T value() && {
        assert(ok());
        return std::get<0>(std::move(m_state));
    }
    T* operator->() { return &value(); }
    const T* operator->() const { return &value(); }
    T& operator*() & { return value(); }
    const T& operator*() const& { return value(); }

    const Error& error() const {
        assert(!ok());
        return std::get<1>(m_state);
    }

    T valueOr(T fallback) const { return ok() ? std::get<0>(m_state) : std::move(fallback); }

private:
    std::variant<T, Error> m_state;
};

template <>
class [[nodiscard]] Result<void> {
public:
    Result() = default;
    Result(Unexpected u) : m_error(std::move(u.error)), m_ok(false) {}

    bool ok() const { return m_ok; }
    explicit operator bool() const { return m_ok; }
    const Error& error() const {
        assert(!m_ok);
        return m_error;
    }

private:
    Error m_error;
    bool m_ok = true;
};

using Status = Result<void>;

}  // namespace smcr
