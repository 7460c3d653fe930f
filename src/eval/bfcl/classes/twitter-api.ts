/**
 * @module eval/bfcl/classes/twitter-api
 * Port of upstream's `TwitterAPI` (posting_api.py): tweets keyed by int id, comments,
 * retweets, following list. `post_tweet`'s list defaults are shared objects, as in Python.
 */
import * as py from "../../python/index.js";
import type { PyDict, PyValue } from "../../python/index.js";
import { type Args, type BfclApi, methodTable, req, stateFields } from "../api.js";

/** TwitterAPI's public attributes, in `vars()` order, around `tweets` (whose keys become ints). */
const FIELDS_BEFORE_TWEETS = stateFields<TwitterAPI>([
  ["username", "username", () => "john"],
  ["password", "password", () => "john123"],
  ["authenticated", "authenticated", () => false],
]);
const FIELDS_AFTER_TWEETS = stateFields<TwitterAPI>([
  ["comments", "comments", () => new Map()],
  ["retweets", "retweets", () => new Map()],
  ["following_list", "followingList", () => ["alice", "bob"]],
  ["tweet_counter", "tweetCounter", () => 0n],
]);

/** Port of upstream's TwitterAPI. */
export class TwitterAPI implements BfclApi {
  readonly className = "TwitterAPI";
  username: PyValue = "john";
  password: PyValue = "john123";
  authenticated: PyValue = false;
  tweets: PyDict = new Map();
  comments: PyValue = new Map();
  retweets: PyValue = new Map();
  followingList: PyValue = ["alice", "bob"];
  tweetCounter: PyValue = 0n;

  loadScenario(scenario: PyDict): void {
    FIELDS_BEFORE_TWEETS.load(this, scenario);
    const tweets = py.asDict(py.getOrMake(scenario, "tweets", () => new Map()));
    this.tweets = new Map([...tweets].map(([k, v]) => [py.pyInt(k), v]));
    FIELDS_AFTER_TWEETS.load(this, scenario);
  }

  publicState(): Array<[string, PyValue]> {
    return [
      ...FIELDS_BEFORE_TWEETS.state(this),
      ["tweets", this.tweets],
      ...FIELDS_AFTER_TWEETS.state(this),
    ];
  }

  /** `body` for an authenticated user; otherwise upstream's error naming the `action`. */
  private authenticatedFor(action: string, body: (a: Args) => PyValue): (a: Args) => PyValue {
    return (a) =>
      py.truthy(this.authenticated)
        ? body(a)
        : py.pyDict({ error: `User not authenticated. Please authenticate before ${action}.` });
  }

  private tweetMissing(tweetId: PyValue): PyDict | null {
    return py.dictHas(this.tweets, py.hashKey(tweetId))
      ? null
      : py.pyDict({ error: `Tweet with ID ${py.pyStr(tweetId)} not found.` });
  }

  private tweetsWhere(keep: (tweet: PyValue) => boolean): PyValue[] {
    return [...this.tweets.values()].filter(keep);
  }

  readonly methods = methodTable([
    [
      "authenticate_twitter",
      [req("username"), req("password")],
      ({ username, password }) => {
        if (py.pyEquals(username!, this.username) && py.pyEquals(password!, this.password)) {
          this.authenticated = true;
          return py.pyDict({ authentication_status: true });
        }
        return py.pyDict({ authentication_status: false });
      },
    ],
    [
      "posting_get_login_status",
      [],
      () => py.pyDict({ login_status: py.truthy(this.authenticated) }),
    ],
    [
      "post_tweet",
      [
        req("content"),
        { name: "tags", default: () => [], sharedDefault: true },
        { name: "mentions", default: () => [], sharedDefault: true },
      ],
      this.authenticatedFor("posting", ({ content, tags, mentions }) => {
        const tweet = py.pyDict({
          id: this.tweetCounter,
          username: this.username,
          content: content!,
          tags: tags!,
          mentions: mentions!,
        });
        py.dictSet(this.tweets, py.hashKey(this.tweetCounter), tweet);
        this.tweetCounter = py.pyAdd(this.tweetCounter, 1n);
        return tweet;
      }),
    ],
    [
      "retweet",
      [req("tweet_id")],
      this.authenticatedFor("retweeting", ({ tweet_id }) => {
        const missing = this.tweetMissing(tweet_id!);
        if (missing) return missing;
        const retweets = py.asDict(this.retweets);
        if (!py.contains(retweets, this.username))
          py.dictSet(retweets, py.hashKey(this.username), []);
        const mine = py.getItem(retweets, this.username);
        if (py.contains(mine, tweet_id!)) return py.pyDict({ retweet_status: "Already retweeted" });
        py.append(mine, tweet_id!);
        return py.pyDict({ retweet_status: "Successfully retweeted" });
      }),
    ],
    [
      "comment",
      [req("tweet_id"), req("comment_content")],
      this.authenticatedFor("commenting", ({ tweet_id, comment_content }) => {
        const missing = this.tweetMissing(tweet_id!);
        if (missing) return missing;
        const comments = py.asDict(this.comments);
        if (!py.contains(comments, tweet_id!)) py.dictSet(comments, py.hashKey(tweet_id!), []);
        py.append(
          py.getItem(comments, tweet_id!),
          py.pyDict({ username: this.username, content: comment_content! }),
        );
        return py.pyDict({ comment_status: "Comment added successfully" });
      }),
    ],
    [
      "mention",
      [req("tweet_id"), req("mentioned_usernames")],
      ({ tweet_id, mentioned_usernames }) => {
        const missing = this.tweetMissing(tweet_id!);
        if (missing) return missing;
        py.extend(py.getItem(py.getItem(this.tweets, tweet_id!), "mentions"), mentioned_usernames!);
        return py.pyDict({ mention_status: "Users mentioned successfully" });
      },
    ],
    [
      "follow_user",
      [req("username_to_follow")],
      this.authenticatedFor("following", ({ username_to_follow }) => {
        if (py.contains(this.followingList, username_to_follow!))
          return py.pyDict({ follow_status: false });
        py.append(this.followingList, username_to_follow!);
        return py.pyDict({ follow_status: true });
      }),
    ],
    [
      "list_all_following",
      [],
      this.authenticatedFor("listing following", () =>
        py.pyDict({ following_list: this.followingList }),
      ),
    ],
    [
      "unfollow_user",
      [req("username_to_unfollow")],
      this.authenticatedFor("unfollowing", ({ username_to_unfollow }) => {
        if (!py.contains(this.followingList, username_to_unfollow!))
          return py.pyDict({ unfollow_status: false });
        py.removeFirst(this.followingList, username_to_unfollow!);
        return py.pyDict({ unfollow_status: true });
      }),
    ],
    [
      "get_tweet",
      [req("tweet_id")],
      ({ tweet_id }) => this.tweetMissing(tweet_id!) ?? py.getItem(this.tweets, tweet_id!),
    ],
    [
      "get_user_tweets",
      [req("username")],
      ({ username }) => this.tweetsWhere((t) => py.pyEquals(py.getItem(t, "username"), username!)),
    ],
    [
      "search_tweets",
      [req("keyword")],
      ({ keyword }) => {
        const needle = py.lower(keyword!);
        return this.tweetsWhere((t) => {
          if (py.lower(py.getItem(t, "content")).includes(needle)) return true;
          return py.iterate(py.getItem(t, "tags")).some((tag) => py.lower(tag) === needle);
        });
      },
    ],
    [
      "get_tweet_comments",
      [req("tweet_id")],
      ({ tweet_id }) => {
        const missing = this.tweetMissing(tweet_id!);
        if (missing) return missing;
        return py.dictGet(py.asDict(this.comments), py.hashKey(tweet_id!)) ?? [];
      },
    ],
    [
      "get_user_stats",
      [req("username")],
      ({ username }) => {
        const tweetCount = BigInt(
          this.tweetsWhere((t) => py.pyEquals(py.getItem(t, "username"), username!)).length,
        );
        const followingCount = py.pyEquals(username!, this.username)
          ? py.pyLen(this.followingList)
          : 0n;
        const retweeted = py.dictGet(py.asDict(this.retweets), py.hashKey(username!)) ?? [];
        return py.pyDict({
          tweet_count: tweetCount,
          following_count: followingCount,
          retweet_count: py.pyLen(retweeted),
        });
      },
    ],
  ]);
}
