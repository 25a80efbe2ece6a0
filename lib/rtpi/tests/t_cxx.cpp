// SPDX-License-Identifier: LGPL-2.1-or-later
/* rtpi::mutex and rtpi::condition_variable (include/rtpi/mutex.hpp, condition_variable.hpp) used the
 * way programs use std::mutex and std::condition_variable, in the spirit
 * of libstdc++'s tests for those: type requirements, std lock types, wait
 * with a predicate, wait_for, wait_until on steady and system clocks,
 * time-outs in the past and far away, forced unwinding by cancellation and
 * a producer/consumer stress.  Built as C++11 and as C++17. */
#include <pthread.h>

#include <atomic>
#include <chrono>
#include <deque>
#include <mutex>
#include <thread>
#include <type_traits>
#include <vector>

#include <rtpi/condition_variable.hpp>
#include <rtpi/mutex.hpp>

#include "tap.h"

using namespace std::chrono;

#define SLEEP_MS	20	/* let a thread reach its wait */
#define ITEMS		100000	/* producer/consumer stress */
#define QUEUE_MAX	16

static_assert(std::is_standard_layout<rtpi::mutex>::value, "mutex: standard layout");
static_assert(std::is_standard_layout<rtpi::condition_variable>::value, "cv: standard layout");
static_assert(std::is_same<rtpi::mutex::native_handle_type, pi_mutex_t *>::value, "mutex handle");
static_assert(std::is_same<rtpi::condition_variable::native_handle_type, pi_cond_t *>::value, "cv handle");
static_assert(sizeof(rtpi::mutex) == sizeof(pi_mutex_t) &&
	      sizeof(rtpi::condition_variable) == sizeof(pi_cond_t) &&
	      alignof(rtpi::condition_variable) == alignof(pi_cond_t), "sizes as the native types");
static_assert(!std::is_copy_constructible<rtpi::mutex>::value &&
	      !std::is_copy_assignable<rtpi::condition_variable>::value, "not copyable");

static rtpi::mutex gm;	/* constant-initialized, as std::mutex */

static void test_mutex()
{
	rtpi::mutex m;
	bool other = true;

	{
		std::lock_guard<rtpi::mutex> g(m);
		std::thread t([&] { other = m.try_lock(); });
		t.join();
	}
	std::unique_lock<rtpi::mutex> ul(m, std::try_to_lock);
	bool got = ul.owns_lock();

	ul.unlock();
	std::lock(gm, m);
	gm.unlock();
	m.unlock();
	check(!other && got, "mutex: lock_guard, unique_lock(try_to_lock), std::lock; try_lock by another thread fails");
	bool threw = false;

	m.lock();
	try {
		m.lock();
	} catch (const std::system_error &e) {
		threw = e.code().value() == EDEADLK;
	}
	m.unlock();
	check(threw, "mutex: relocking throws std::system_error(EDEADLK), as std::mutex may");
}

static void test_wait_pred()
{
	rtpi::mutex m;
	rtpi::condition_variable cv;
	int ready = 0, woke = 0;
	std::vector<std::thread> ts;

	for (int i = 0; i < 4; i++)
		ts.emplace_back([&] {
			std::unique_lock<rtpi::mutex> l(m);
			cv.wait(l, [&] { return ready != 0; });
			woke++;
		});
	std::this_thread::sleep_for(milliseconds(SLEEP_MS));
	{
		std::lock_guard<rtpi::mutex> g(m);
		ready = 1;
	}
	cv.notify_all();	/* without the mutex, as std allows */
	for (auto &t : ts)
		t.join();
	check(woke == 4, "condition_variable: wait(lock, pred) x4, notify_all without the mutex");

	int token = 0, got = 0;
	auto token_waiter = [&] {
		std::unique_lock<rtpi::mutex> l(m);
		while (token == 0)
			cv.wait(l);
		got = token;
	};
	std::thread t(token_waiter);
	std::this_thread::sleep_for(milliseconds(SLEEP_MS));
	{
		std::lock_guard<rtpi::mutex> g(m);
		token = 7;
		cv.notify_one();
	}
	t.join();
	check(got == 7, "condition_variable: wait(lock) + notify_one under the mutex");

	/* librtpi's form: notify names the mutex by a (deferred) lock */
	token = 0;
	std::thread t2(token_waiter);
	std::this_thread::sleep_for(milliseconds(SLEEP_MS));
	{
		std::unique_lock<rtpi::mutex> l(m, std::defer_lock);
		l.lock();
		token = 8;
		l.unlock();
		cv.notify_one(l);
	}
	t2.join();
	check(got == 8, "condition_variable: notify_one(unique_lock) with the lock released (librtpi's C++ call)");
}

template <class Clock> static bool timeout_on()
{
	rtpi::mutex m;
	rtpi::condition_variable cv;
	std::unique_lock<rtpi::mutex> l(m);
	auto t0 = Clock::now();
	auto st = cv.wait_until(l, t0 + milliseconds(30));

	return st == std::cv_status::timeout && Clock::now() - t0 >= milliseconds(30) &&
	       l.owns_lock();
}

static void test_timeouts()
{
	rtpi::mutex m;
	rtpi::condition_variable cv;
	std::unique_lock<rtpi::mutex> l(m);

	check(timeout_on<steady_clock>(), "wait_until(steady_clock): times out, not early, lock held");
	check(timeout_on<system_clock>(), "wait_until(system_clock): times out, not early, lock held");
	check(timeout_on<high_resolution_clock>(), "wait_until(high_resolution_clock): times out, not early");

	auto t0 = steady_clock::now();
	bool r = cv.wait_for(l, milliseconds(30), [] { return false; });

	check(!r && steady_clock::now() - t0 >= milliseconds(30),
	      "wait_for(30 ms, false predicate): false after 30 ms");
	check(cv.wait_for(l, milliseconds(-5)) == std::cv_status::timeout &&
	      cv.wait_until(l, system_clock::time_point(seconds(-1))) == std::cv_status::timeout &&
	      cv.wait_until(l, steady_clock::time_point(seconds(-1))) == std::cv_status::timeout &&
	      cv.wait_for(l, duration<double>(0.001)) == std::cv_status::timeout,
	      "negative, past (also before the epoch) and fractional time-outs time out");
	check(cv.wait_for(l, seconds(1), [] { return true; }) &&
	      cv.wait_until(l, system_clock::now() + seconds(1), [] { return true; }),
	      "wait_for/wait_until with a true predicate return true at once");

	/* far-away time-outs must not overflow into the past */
	bool flag = false, res = false;
	l.unlock();
	std::thread t([&] {
		std::unique_lock<rtpi::mutex> l2(m);
		res = cv.wait_for(l2, hours::max(), [&] { return flag; }) &&
		      cv.wait_until(l2, steady_clock::time_point::max(), [&] { return flag; }) &&
		      cv.wait_until(l2, system_clock::time_point::max(), [&] { return flag; });
	});
	std::this_thread::sleep_for(milliseconds(SLEEP_MS));
	{
		std::lock_guard<rtpi::mutex> g(m);
		flag = true;
	}
	cv.notify_one();
	t.join();
	check(res, "wait_for(hours::max()), wait_until(time_point::max()) on both clocks: woken, no overflow");
}

/* forced unwinding: a thread cancelled in wait() unwinds its C++ frames
 * with the mutex locked, so its unique_lock releases it */
static rtpi::mutex cm;
static rtpi::condition_variable ccv;
static std::atomic<int> unwound;

struct on_unwind {
	~on_unwind() { unwound++; }
};

static void *cancelled_waiter(void *)
{
	on_unwind u;
	std::unique_lock<rtpi::mutex> l(cm);

	for (;;)
		ccv.wait(l);
	return nullptr;
}

static void test_cancel()
{
	pthread_t t;
	void *res = nullptr;
	struct timespec ts;

	pthread_create(&t, nullptr, cancelled_waiter, nullptr);
	std::this_thread::sleep_for(milliseconds(SLEEP_MS));
	pthread_cancel(t);
	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += 5;
	bool joined = pthread_timedjoin_np(t, &res, &ts) == 0;
	bool free_after = joined && cm.try_lock();

	if (free_after)
		cm.unlock();
	check(joined && res == PTHREAD_CANCELED && unwound == 1 && free_after,
	      "pthread_cancel in wait(): forced unwinding runs destructors, unique_lock releases the mutex");
}

static void test_stress()
{
	rtpi::mutex m;
	rtpi::condition_variable not_empty, not_full;
	std::deque<long> q;
	long sum = 0, want = 0;
	int taken = 0;
	std::vector<std::thread> ts;

	for (int p = 0; p < 2; p++)
		ts.emplace_back([&, p] {
			for (long i = p; i < ITEMS; i += 2) {
				std::unique_lock<rtpi::mutex> l(m);
				not_full.wait(l, [&] { return q.size() < QUEUE_MAX; });
				q.push_back(i);
				not_empty.notify_one();
			}
		});
	for (int c = 0; c < 2; c++)
		ts.emplace_back([&] {
			for (;;) {
				std::unique_lock<rtpi::mutex> l(m);
				if (!not_empty.wait_for(l, seconds(10),
						[&] { return !q.empty() || taken == ITEMS; }))
					return;
				if (taken == ITEMS)
					return;
				sum += q.front();
				q.pop_front();
				if (++taken == ITEMS)
					not_empty.notify_all();
				l.unlock();
				not_full.notify_one();
			}
		});
	for (auto &t : ts)
		t.join();
	for (long i = 0; i < ITEMS; i++)
		want += i;
	check(taken == ITEMS && sum == want && q.empty(),
	      "producer/consumer stress: 2 producers, 2 consumers, %d items through a %d-slot queue, all delivered once",
	      ITEMS, QUEUE_MAX);
}

int main()
{
	printf("# C++ API (__cplusplus %ld)\n", (long)__cplusplus);
	test_mutex();
	test_wait_pred();
	test_timeouts();
	test_cancel();
	test_stress();
	return tap_exit();
}
