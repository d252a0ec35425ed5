#include "signals.h"

#include <atomic>

#include "real_calls.h"

namespace smcr::preload {

namespace {

constexpr int kMaxSignal = 65;

struct Saved {
    std::atomic<void*> handler{nullptr};  // the program's (sa_handler or sa_sigaction)
    std::atomic<int> flags{0};
};
Saved g_saved[kMaxSignal];
std::atomic<uint64_t> g_interrupting{0};

void trampoline(int signo, siginfo_t* info, void* context) {
    const Saved& s = g_saved[signo];
    const int flags = s.flags.load(std::memory_order_relaxed);
    if ((flags & SA_RESTART) == 0) g_interrupting.fetch_add(1, std::memory_order_relaxed);
    void* fn = s.handler.load(std::memory_order_relaxed);
    if (fn == nullptr) return;
    if ((flags & SA_SIGINFO) != 0) {
        reinterpret_cast<void (*)(int, siginfo_t*, void*)>(fn)(signo, info, context);
    } else {
        reinterpret_cast<void (*)(int)>(fn)(signo);
    }
}

void* handlerOf(const struct sigaction& act) {
    if ((act.sa_flags & SA_SIGINFO) != 0) return reinterpret_cast<void*>(act.sa_sigaction);
    return reinterpret_cast<void*>(act.sa_handler);
}

// Faults are the program's own business: no frame of ours in between.
bool wrappable(int signo, const struct sigaction& act) {
    if (signo <= 0 || signo >= kMaxSignal) return false;
    if (signo == SIGSEGV || signo == SIGBUS || signo == SIGILL || signo == SIGFPE || signo == SIGABRT) return false;
    if ((act.sa_flags & SA_SIGINFO) == 0 && (act.sa_handler == SIG_DFL || act.sa_handler == SIG_IGN)) return false;
    return handlerOf(act) != nullptr;
}

}  // namespace

int interposedSigaction(int signo, const struct sigaction* act, struct sigaction* old) {
    const bool inRange = signo > 0 && signo < kMaxSignal;
    void* prevHandler = inRange ? g_saved[signo].handler.load() : nullptr;
    const int prevFlags = inRange ? g_saved[signo].flags.load() : 0;
    struct sigaction mine {};
    const struct sigaction* pass = act;
    const bool wrap = act != nullptr && wrappable(signo, *act);
    if (wrap) {
        // Saved first: a signal may come the moment the trampoline is in.
        g_saved[signo].flags.store(act->sa_flags);
        g_saved[signo].handler.store(handlerOf(*act));
        mine = *act;
        mine.sa_sigaction = trampoline;
        mine.sa_flags |= SA_SIGINFO;
        pass = &mine;
    }
    const int rc = real().sigaction(signo, pass, old);
    if (rc != 0) {
        if (wrap) {
            g_saved[signo].handler.store(prevHandler);
            g_saved[signo].flags.store(prevFlags);
        }
        return rc;
    }
    if (old != nullptr && (old->sa_flags & SA_SIGINFO) != 0 && old->sa_sigaction == trampoline) {
        // The program sees the handler it installed, not ours.
        old->sa_flags = prevFlags;
        if ((prevFlags & SA_SIGINFO) != 0) {
            old->sa_sigaction = reinterpret_cast<void (*)(int, siginfo_t*, void*)>(prevHandler);
        } else {
            old->sa_handler = reinterpret_cast<void (*)(int)>(prevHandler);
        }
    }
    if (act != nullptr && !wrap && inRange) g_saved[signo].handler.store(nullptr);
    return rc;
}

uint64_t interruptingSignals() {
    return g_interrupting.load(std::memory_order_relaxed);
}

}  // namespace smcr::preload
