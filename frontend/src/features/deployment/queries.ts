import { graphql } from "../../gql";

export const DeploymentViewFragment = graphql(`
  fragment DeploymentView on Deployment {
    id
    tenant
    application
    environment
    state
    requester
    createdAt
    startedAt
    finishedAt
    updatedAt
    startAt
    dryRun
    release
    artifact {
      type
      name
      version
      source
      pinnedSha256
    }
    sha256
    labels {
      key
      value
    }
    plan {
      steps {
        name
        type
        specHash
        maxRetries
        timeoutSeconds
        mandatory
      }
    }
    effective {
      plugin
      targets {
        name
        host
        port
        user
        path
      }
      healthChecks
      secretNames
      configSource
      configRevision
      rollback {
        enabled
        on
      }
    }
    decision {
      rule
      requires
      reason
      approvalsRequired
      approvalGroups
      change
      freeze
      promotionFrom
      promotionSatisfiedBy
    }
    approval {
      status
      required
      remaining
      groups
      expiresAt
      approvals {
        identity
        approved
        comment
        time
      }
    }
    after {
      status
      expiresAt
      reason
      dependencies {
        id
        state
      }
    }
    dependents {
      id
      state
    }
    exports {
      name
      format
      value
      public
    }
    currentStep
    error
    cancelRequested
    cancelledBy
    canCancel
    canApprove
    canPauseRollout
    canResumeRollout
    canAbortRollout
    canRedeploy
    promotionTargets
    memberOf {
      id
      state
    }
    approvalContext {
      ...ApprovalContextView
    }
    steps {
      ...StepView
    }
    rollback {
      state
      steps {
        ...StepView
      }
    }
    rollout {
      ...RolloutView
    }
  }
`);

/** Where a rollout stands, wave by wave and target by target (the status JSON's rollout). */
export const RolloutViewFragment = graphql(`
  fragment RolloutView on Rollout {
    state
    currentWave
    targetsTotal
    targetsDone
    waves {
      name
      state
      targets
      deferredUntil
      batches {
        index
        targets
        state
        startedAt
        finishedAt
      }
      bake {
        seconds
        until
      }
      gate {
        state
        at
        checks {
          name
          state
          value
          detail
        }
      }
      approval {
        status
        required
        groups
        roles
        expiresAt
        approvals {
          identity
          approved
        }
      }
    }
    targets {
      name
      labels {
        key
        value
      }
      outcome
      wave
      batch
      state
      release
      error
    }
    pause {
      step
      reason
      since
      until
      by
      mayResume
    }
    request {
      action
      by
      at
    }
  }
`);

export const PauseRolloutMutation = graphql(`
  mutation PauseRollout($id: ID!, $reason: String) {
    pauseRollout(id: $id, reason: $reason) {
      ...DeploymentView
    }
  }
`);

export const ResumeRolloutMutation = graphql(`
  mutation ResumeRollout($id: ID!, $comment: String, $pause: String) {
    resumeRollout(id: $id, comment: $comment, pause: $pause) {
      ...DeploymentView
    }
  }
`);

export const AbortRolloutMutation = graphql(`
  mutation AbortRollout($id: ID!, $reason: String) {
    abortRollout(id: $id, reason: $reason) {
      ...DeploymentView
    }
  }
`);

/** One operation: a step's run, the checkpoint before it, or a compensation of the rollback. */
export const StepViewFragment = graphql(`
  fragment StepView on Step {
    name
    kind
    pass
    batch
    target
    position
    type
    state
    attempts
    startedAt
    finishedAt
    durationMs
    output {
      key
      value
    }
    error
  }
`);

export const LogLineViewFragment = graphql(`
  fragment LogLineView on LogLine {
    seq
    time
    step
    level
    message
  }
`);

export const DeploymentPageQuery = graphql(`
  query DeploymentPage($id: ID!) {
    deployment(id: $id) {
      ...DeploymentView
      logs(after: 0, limit: 1000) {
        lines {
          ...LogLineView
        }
        lastSeq
      }
    }
  }
`);

export const DeploymentLiveSubscription = graphql(`
  subscription DeploymentLive($id: ID!, $logsAfter: Int) {
    deploymentEvents(id: $id, logsAfter: $logsAfter) {
      kind
      deployment {
        ...DeploymentView
      }
      logLines {
        ...LogLineView
      }
    }
  }
`);

/**
 * Changes of the deploys that run after one: the deploy's own events do not
 * carry them, and its own subscription ends with its final state, which is
 * when they start.
 */
export const DependentsFeedSubscription = graphql(`
  subscription DependentsFeed {
    activity {
      deployment {
        id
        state
        after {
          dependencies {
            id
          }
        }
      }
    }
  }
`);

export const CancelDeploymentMutation = graphql(`
  mutation CancelDeployment($id: ID!) {
    cancelDeployment(id: $id) {
      ...DeploymentView
    }
  }
`);
