#ifndef WKSTORE_CCURL_SHIM_H
#define WKSTORE_CCURL_SHIM_H
#include <curl/curl.h>

/* curl_easy_setopt, curl_easy_getinfo and curl_multi_setopt are variadic and cannot be
   called from Swift. One typed, non-variadic function per argument kind instead. */

static inline CURLcode wk_easy_setopt_long(CURL *h, CURLoption o, long v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode wk_easy_setopt_int64(CURL *h, CURLoption o, curl_off_t v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode wk_easy_setopt_string(CURL *h, CURLoption o, const char *v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode wk_easy_setopt_pointer(CURL *h, CURLoption o, void *v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode wk_easy_setopt_slist(CURL *h, CURLoption o, struct curl_slist *v) { return curl_easy_setopt(h, o, v); }

typedef size_t (*wk_data_callback)(char *data, size_t size, size_t count, void *user);
static inline CURLcode wk_easy_setopt_data_callback(CURL *h, CURLoption o, wk_data_callback v) { return curl_easy_setopt(h, o, v); }

typedef int (*wk_xferinfo_callback)(void *user, curl_off_t dltotal, curl_off_t dlnow, curl_off_t ultotal, curl_off_t ulnow);
static inline CURLcode wk_easy_setopt_xferinfo_callback(CURL *h, wk_xferinfo_callback v) { return curl_easy_setopt(h, CURLOPT_XFERINFOFUNCTION, v); }

static inline CURLcode wk_easy_getinfo_long(CURL *h, CURLINFO i, long *v) { return curl_easy_getinfo(h, i, v); }
static inline CURLcode wk_easy_getinfo_int64(CURL *h, CURLINFO i, curl_off_t *v) { return curl_easy_getinfo(h, i, v); }
static inline CURLcode wk_easy_getinfo_double(CURL *h, CURLINFO i, double *v) { return curl_easy_getinfo(h, i, v); }
static inline CURLcode wk_easy_getinfo_string(CURL *h, CURLINFO i, char **v) { return curl_easy_getinfo(h, i, v); }
static inline CURLcode wk_easy_getinfo_pointer(CURL *h, CURLINFO i, void **v) { return curl_easy_getinfo(h, i, v); }

static inline CURLMcode wk_multi_setopt_long(CURLM *m, CURLMoption o, long v) { return curl_multi_setopt(m, o, v); }
static inline CURLMcode wk_multi_setopt_pointer(CURLM *m, CURLMoption o, void *v) { return curl_multi_setopt(m, o, v); }

typedef int (*wk_socket_callback)(CURL *easy, curl_socket_t s, int what, void *user, void *socketp);
static inline CURLMcode wk_multi_setopt_socket_callback(CURLM *m, wk_socket_callback v) { return curl_multi_setopt(m, CURLMOPT_SOCKETFUNCTION, v); }
typedef int (*wk_timer_callback)(CURLM *multi, long timeout_ms, void *user);
static inline CURLMcode wk_multi_setopt_timer_callback(CURLM *m, wk_timer_callback v) { return curl_multi_setopt(m, CURLMOPT_TIMERFUNCTION, v); }
#endif
