#include <cstring>

#include <smcr/result.h>

namespace smcr {

const char* errcName(Errc code) {
    switch (code) {
        case Errc::invalid:
            return "invalid";
        case Errc::malformed:
            return "malformed";
        case Errc::notSupported:
            return "not supported";
        case Errc::invalidArgument:
            return "invalid argument";
        case Errc::invalidState:
            return "invalid state";
        case Errc::outOfResources:
            return "out of resources";
        case Errc::wouldBlock:
            return "would block";
        case Errc::timedOut:
            return "timed out";
        case Errc::connectionRefused:
            return "connection refused";
        case Errc::connectionReset:
            return "connection reset";
        case Errc::connectionAborted:
            return "connection aborted";
        case Errc::closed:
            return "closed";
        case Errc::accessDenied:
            return "access denied";
        case Errc::notFound:
            return "not found";
        case Errc::protocolViolation:
            return "protocol violation";
        case Errc::declined:
            return "declined";
        case Errc::systemError:
            return "system error";
    }
    return "unknown";
}

std::string Error::toString() const {
    std::string text = errcName(code);
    if (!message.empty()) {
        text += ": ";
        text += message;
    }
    return text;
}

Error makeError(Errc code, std::string message) {
    return Error{code, std::move(message), 0};
}

Error makeSystemError(const std::string& what, int err) {
    return Error{Errc::systemError, what + ": " + std::strerror(err), err};
}

}  // namespace smcr
