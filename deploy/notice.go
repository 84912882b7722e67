package deploy

import (
	"context"
	"slices"
	"time"
)

// NoticeType is what a notice of a deploy reports. Callbacks see started,
// step and finished; chat sees started, approval, finished and the steps
// that failed.
type NoticeType string

// Event types.
const (
	NoticeStarted  NoticeType = "started"
	NoticeStep     NoticeType = "step"
	NoticeApproval NoticeType = "approval"
	NoticeFinished NoticeType = "finished"
)

// CallbackNotices are the events a descriptor's callback may ask for, and
// the ones it gets when it names none.
var CallbackNotices = []NoticeType{NoticeStarted, NoticeStep, NoticeFinished}

// Notice is an event of a deploy that manent reports outside itself (a
// callback, a chat message); Event is the change the live views read. It is
// recorded in the same transaction as the fact, once: its ID is derived
// from the deploy and the fact, so a replayed transaction records nothing
// twice, and it is the webhook-id of every delivery of it.
type Notice struct {
	ID           string     `json:"id"`
	Type         NoticeType `json:"type"`
	DeploymentID string     `json:"deployment_id"`
	// Step is the step's key name for a step event, and for a wave's
	// approval the key of its approval record (approval[N], N the pass);
	// "" otherwise.
	Step string `json:"step,omitempty"`
	// State is the step's state for a step event, the deploy's otherwise.
	State string `json:"state,omitempty"`
	// Rollback is the rollback outcome of a finished deploy, when one was
	// needed.
	Rollback string    `json:"rollback,omitempty"`
	At       time.Time `json:"at"`
}

// Callback is one entry of a descriptor's callbacks: a URL that receives
// the events it names (all of CallbackNotices when it names none).
type Callback struct {
	URL    string       `json:"url"`
	Events []NoticeType `json:"events,omitempty"`
}

// Wants reports whether the callback receives events of type t.
func (c Callback) Wants(t NoticeType) bool {
	if len(c.Events) == 0 {
		return slices.Contains(CallbackNotices, t)
	}
	return slices.Contains(c.Events, t)
}

// DeliveryState is where one delivery of an event to a callback stands.
type DeliveryState string

// Delivery states, from the best to the worst.
const (
	DeliveryDelivered DeliveryState = "delivered"
	DeliveryPending   DeliveryState = "pending"
	DeliveryRetrying  DeliveryState = "retrying"
	// DeliveryDisabled: the receiver answered 410 Gone, to this delivery
	// or to an earlier one of a deploy of the same tenant: nothing more is
	// sent there until a replay with --include-disabled.
	DeliveryDisabled DeliveryState = "disabled"
	// DeliveryDead: the retry window ended without a delivery, or the
	// receiver refused it for good; a replay sends it again.
	DeliveryDead DeliveryState = "dead"
)

// Worse reports whether s is worse than o (dead > disabled > retrying >
// pending > delivered): a callback shows its worst delivery.
func (s DeliveryState) Worse(o DeliveryState) bool { return s.rank() > o.rank() }

func (s DeliveryState) rank() int {
	return slices.Index([]DeliveryState{DeliveryDelivered, DeliveryPending, DeliveryRetrying, DeliveryDisabled, DeliveryDead}, s)
}

// Final reports whether nothing more happens to a delivery in state s
// unless it is replayed.
func (s DeliveryState) Final() bool {
	return s == DeliveryDelivered || s == DeliveryDisabled || s == DeliveryDead
}

// Delivery is one event sent (or to be sent) to one callback of a deploy.
// URL is the callback's whole URL, which the engine calls: show it only
// through RedactURL.
type Delivery struct {
	ID           string
	DeploymentID string
	EventID      string
	EventType    NoticeType
	Step         string
	// Callback is the index of the callback in the descriptor.
	Callback int
	URL      string
	// Body is the payload, as the first attempt sent it: a replay sends
	// the same bytes.
	Body          string
	State         DeliveryState
	Attempts      int
	LastStatus    int
	LastError     string
	NextAttemptAt *time.Time
	DeliveredAt   *time.Time
	CreatedAt     time.Time
}

// StatusCallback is one callback in the status JSON.
type StatusCallback struct {
	URL        string           `json:"url"`
	Events     []NoticeType     `json:"events"`
	State      DeliveryState    `json:"state"`
	Deliveries []StatusDelivery `json:"deliveries"`
}

// StatusDelivery is one delivery of a callback in the status JSON.
type StatusDelivery struct {
	ID            string        `json:"id"`
	Event         NoticeType    `json:"event"`
	EventID       string        `json:"event_id"`
	Step          string        `json:"step,omitempty"`
	State         DeliveryState `json:"state"`
	Attempts      int           `json:"attempts"`
	LastStatus    *int          `json:"last_status"`
	LastError     *string       `json:"last_error"`
	NextAttemptAt *time.Time    `json:"next_attempt_at"`
	DeliveredAt   *time.Time    `json:"delivered_at"`
}

// NewStatusCallbacks lists the callbacks of d with their deliveries; nil
// when the deploy has none, or when its deliveries were not read (a list
// reads none: a callback would look pending). A callback with no delivery
// yet is pending.
func NewStatusCallbacks(d *Deployment) []StatusCallback {
	if len(d.Descriptor.Callbacks) == 0 || d.Deliveries == nil {
		return nil
	}
	out := make([]StatusCallback, len(d.Descriptor.Callbacks))
	for i, c := range d.Descriptor.Callbacks {
		events := c.Events
		if len(events) == 0 {
			events = CallbackNotices
		}
		out[i] = StatusCallback{URL: RedactURL(c.URL), Events: events, State: DeliveryPending, Deliveries: []StatusDelivery{}}
	}
	seen := make([]bool, len(out))
	for _, dl := range d.Deliveries {
		if dl.Callback < 0 || dl.Callback >= len(out) {
			continue
		}
		c := &out[dl.Callback]
		if !seen[dl.Callback] || dl.State.Worse(c.State) {
			c.State = dl.State
		}
		seen[dl.Callback] = true
		c.Deliveries = append(c.Deliveries, StatusDelivery{
			ID: dl.ID, Event: dl.EventType, EventID: dl.EventID, Step: dl.Step, State: dl.State, Attempts: dl.Attempts,
			LastStatus: nonZero(dl.LastStatus), LastError: optional(dl.LastError), NextAttemptAt: utc(dl.NextAttemptAt),
			DeliveredAt: utc(dl.DeliveredAt),
		})
	}
	return out
}

func nonZero(n int) *int {
	if n == 0 {
		return nil
	}
	return &n
}

// DeliveryAttempt is what one attempt of a delivery changed of it.
type DeliveryAttempt struct {
	State         DeliveryState
	Attempts      int
	LastStatus    int
	LastError     string
	NextAttemptAt *time.Time
	DeliveredAt   *time.Time
}

// DeliveryStore keeps the deliveries of the deploys' events to their
// callbacks, the part of them that readers see.
type DeliveryStore interface {
	// PutDelivery records a delivery, pending, unless it is recorded, and
	// says what to send: the body recorded first. A step event beyond the
	// callback's maxSteps step events of the deploy is not sent: the first
	// one is recorded dead with note as its error, the later ones not at
	// all (maxSteps 0: no bound).
	PutDelivery(ctx context.Context, d Delivery, maxSteps int, note string) (DeliveryPut, error)
	// RecordDelivery records what an attempt of the delivery id changed.
	RecordDelivery(ctx context.Context, id string, a DeliveryAttempt) error
	// URLDisabled reports whether the receiver at url answered 410 Gone to
	// a delivery of a deploy of the deploy's tenant, and was not enabled
	// again since (a replay with disabled set).
	URLDisabled(ctx context.Context, deploymentID, url string) (bool, error)
	// Deliveries lists the deliveries of a deploy, oldest first.
	Deliveries(ctx context.Context, deploymentID string) ([]Delivery, error)
	// StartReplay makes the dead deliveries of the deploy (and the disabled
	// ones when disabled is set, enabling their URLs again for the tenant)
	// pending again, counting a replay of each;
	// deliveryID "" takes them all, otherwise only that one. It returns
	// them with the number of their replay, after enqueue was called on
	// the same transaction tx with them; ENOTFOUND for an unknown
	// delivery, ECONFLICT for one that is not dead (or disabled).
	StartReplay(ctx context.Context, deploymentID, deliveryID string, disabled bool, enqueue func(tx any, r []Replay) error) ([]Replay, error)
}

// DeliveryPut is what PutDelivery recorded: the body to send, unless Send
// is false (beyond the bound of step events); Noted when this delivery is
// the one that says so.
type DeliveryPut struct {
	Body  string
	Send  bool
	Noted bool
}

// Replay is one delivery sent again, the n-th time it is.
type Replay struct {
	Delivery Delivery
	N        int
	// Tenant is the deploy's tenant, the partition of its deliveries.
	Tenant string
}
