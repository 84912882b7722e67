package engine

import (
	"fmt"
	"strconv"
	"time"

	"manent.dev/manent/deploy"
)

// The names DBOS stores in its tables: workflow and queue names, workflow ID
// suffixes, message topics and the names of the steps a workflow records.
// They are part of the on-disk format: a rename strands the workflows in
// flight, so they are written here once and nowhere else (internal/postgres
// receives them from the engine).
const (
	appName = "manent"

	// deployWorkflowName runs a deploy's pipeline; its ID is the deploy's.
	deployWorkflowName = "manent.deploy"
	// waitWorkflowName holds a deploy until its dependencies, its time,
	// its approvals and its change ticket let it go; ID <deploy>:wait.
	waitWorkflowName = "manent.wait"
	// releaseWorkflowName follows a composite release; ID <release>:release.
	releaseWorkflowName = "manent.release"
	// undoWorkflowName compensates a deploy of a release that succeeded;
	// ID <deploy>:undo, on the deploy's queue partition.
	undoWorkflowName = "manent.undo"
	// scheduleWorkflowName waits for one tick of a recurring schedule;
	// ID <schedule>:schedule:<generation>[:<previous tick>].
	scheduleWorkflowName = "manent.schedule"
	// retentionWorkflowName runs the retention of one UTC day;
	// ID manent:retention:<YYYY-MM-DD>.
	retentionWorkflowName = "manent.retention"
	// noticeWorkflowName takes the snapshot of one event of a deploy and
	// starts its deliveries; ID <deploy>:event:<type>[:<step>].
	noticeWorkflowName = "manent.event"
	// callbackWorkflowName makes one attempt of the delivery of one event
	// to one callback; ID <event>:callback:<index>, <that>:replay:<n> for
	// its replays, and <either>:retry:<attempt> for their retries.
	callbackWorkflowName = "manent.callback"
	// chatWorkflowName makes one attempt of posting one event to one chat
	// target; ID <event>:chat:<target key>, <that>:retry:<attempt> for retries.
	chatWorkflowName = "manent.chat"

	// deployQueue is partitioned per tenant/application/environment; an
	// environment with a concurrency above one has a queue of its own
	// (deployQueue.c<n>), since DBOS's partition limit is queue-wide.
	deployQueue = "manent.deploy"
	// waitQueue holds waits, releases and schedules: no partition and no
	// deploy slot, so a wait never blocks its environment.
	waitQueue = "manent.wait"
	// noticeQueue holds the events' snapshots (and the deliveries enqueued
	// before they had queues of their own), with a worker concurrency of
	// its own (callbacks.concurrency): they never take a deploy's slot.
	noticeQueue = "manent.event"
	// callbackQueue holds the callbacks' attempts, partitioned by tenant
	// (callbacks.concurrency_per_tenant), chatQueue the chat messages: a
	// slow receiver holds up neither the snapshots, nor the chat, nor
	// another tenant's callbacks.
	callbackQueue = "manent.event.callback"
	chatQueue     = "manent.event.chat"
	// noQueue is what a process that must not dequeue listens to.
	noQueue = "manent.none"

	waitSuffix     = ":wait"
	undoSuffix     = ":undo"
	releaseSuffix  = ":release"
	scheduleSuffix = ":schedule"
	noticeSuffix   = ":event:"
	callbackSuffix = ":callback:"
	chatSuffix     = ":chat:"
	replaySuffix   = ":replay:"
	retrySuffix    = ":retry:"

	// Message topics.
	topicWait      = "wait"
	topicRelease   = "release"
	topicSchedule  = "schedule"
	topicRetention = "retention"
	// topicRollout wakes a deploy's workflow in a rollout's bake or pause
	// (a cancel, a request of its rollout).
	topicRollout = "rollout"
)

// waitWorkflows names the wait workflows for the store's sweep of the
// waits whose wake-up was lost.
var waitWorkflows = deploy.WaitWorkflows{Suffix: waitSuffix, Topic: topicWait}

// workflowNames lists every workflow of manent, for the takeover of a dead
// executor's workflows.
var workflowNames = []string{deployWorkflowName, waitWorkflowName, releaseWorkflowName, scheduleWorkflowName, undoWorkflowName,
	retentionWorkflowName, noticeWorkflowName, callbackWorkflowName, chatWorkflowName}

// onDeployQueue reports whether a workflow runs on a deploy queue (its
// environment's partition) rather than on the wait queue.
func onDeployQueue(workflow string) bool {
	return workflow == deployWorkflowName || workflow == undoWorkflowName
}

// eventQueue is the queue of an event's workflow (a snapshot, a callback,
// a chat message), "" for the others. A callback without a partition key
// was enqueued before the callbacks' queue existed: it stays on noticeQueue.
func eventQueue(workflow, partition string) string {
	switch {
	case workflow == noticeWorkflowName || (workflow == callbackWorkflowName && partition == ""):
		return noticeQueue
	case workflow == callbackWorkflowName:
		return callbackQueue
	case workflow == chatWorkflowName:
		return chatQueue
	}
	return ""
}

// Names of the steps workflows record besides the plan's own (whose names
// come from deploy.StepKey.Name).
const (
	stepStart        = "manent.start"
	stepRecordPrefix = "manent.record:"
	stepFinish       = "manent.finish"
	stepWake         = "manent.wake"

	stepAfterEvaluate     = "manent.after.evaluate"
	stepAtEvaluate        = "manent.schedule.at"
	stepApprovalsRequest  = "manent.approvals.request"
	stepApprovalsEvaluate = "manent.approvals.evaluate"
	stepWaitEnqueue       = "manent.wait.enqueue"
	stepWaitFinish        = "manent.wait.finish"

	stepReleaseQueue        = "manent.release.queue"
	stepReleaseEvaluate     = "manent.release.evaluate"
	stepReleaseStop         = "manent.release.stop"
	stepReleaseFinish       = "manent.release.finish"
	stepReleaseRollback     = "manent.release.rollback:"
	stepReleaseRollbackEval = "manent.release.rollback.evaluate"
	stepReleaseRollbackSkip = "manent.release.rollback.skip"
	stepScheduleNext        = "manent.schedule.next"
	stepScheduleReached     = "manent.schedule.reached"
	stepScheduleTick        = "manent.schedule.tick"
	stepUndoPlan            = "manent.undo.plan"
	stepUndoStart           = "manent.undo.start"
	stepUndoFinish          = "manent.undo.finish"
	stepRolloutBake         = "manent.rollout.bake"
	stepRolloutBakeLook     = "manent.rollout.bake.look"
	stepRolloutBakeEnd      = "manent.rollout.bake.end"
	stepRolloutGates        = "manent.rollout.gates"
	stepRolloutLook         = "manent.rollout.look"
	stepRolloutPause        = "manent.rollout.pause"
	stepRolloutPauseLook    = "manent.rollout.pause.look"
	stepRolloutPauseEnd     = "manent.rollout.pause.end"
	stepRolloutPauseDrop    = "manent.rollout.pause.drop"
	stepRolloutApproval     = "manent.rollout.approval"
	stepRolloutApprovalLook = "manent.rollout.approval.look"
	stepRolloutDefer        = "manent.rollout.defer"
	stepRolloutDeferCheck   = "manent.rollout.defer.check"
	stepRolloutDeferLook    = "manent.rollout.defer.look"
	stepRolloutDeferAgain   = "manent.rollout.defer.again"
	stepChangeOpen          = "change:open"
	stepNoticeSnapshot      = "manent.event.snapshot"
	stepCallbackStart       = "manent.callback.start"
	stepCallbackAttempt     = "manent.callback.attempt:"
	stepCallbackRecord      = "manent.callback.record:"
	stepChatStart           = "manent.chat.start"
	stepChatAttempt         = "manent.chat.attempt:"
	stepChangeClose         = "change:close"
)

func waitWorkflowID(deployID string) string { return deployID + waitSuffix }

// noticeID is the ID of an event of a deploy, and of its workflow: step is
// the step's key name for a step event, the wave for a wave's approval.
func noticeID(deployID string, t deploy.NoticeType, step string) string {
	id := deployID + noticeSuffix + string(t)
	if step != "" {
		id += ":" + step
	}
	return id
}

func callbackWorkflowID(noticeID string, i int) string {
	return noticeID + callbackSuffix + strconv.Itoa(i)
}

func chatWorkflowID(noticeID, target string) string { return noticeID + chatSuffix + target }

// retryWorkflowID is the attempt n of a delivery (or chat message, or
// replay) whose first attempt is the workflow run.
func retryWorkflowID(run string, n int) string { return run + retrySuffix + strconv.Itoa(n) }

func replayWorkflowID(deliveryID string, n int) string {
	return deliveryID + replaySuffix + strconv.Itoa(n)
}
func releaseWorkflowID(releaseID string) string { return releaseID + releaseSuffix }

func scheduleWorkflowID(name string, generation int) string {
	return name + scheduleSuffix + ":" + strconv.Itoa(generation)
}

// scheduleTickWorkflowID is the workflow that follows the tick since: one
// ID per tick, so a step that runs again enqueues nothing twice.
func scheduleTickWorkflowID(name string, generation int, since time.Time) string {
	return fmt.Sprintf("%s:%s", scheduleWorkflowID(name, generation), since.UTC().Format("20060102-150405"))
}

func queueName(concurrency int) string {
	if concurrency <= 1 {
		return deployQueue
	}
	return deployQueue + ".c" + strconv.Itoa(concurrency)
}
