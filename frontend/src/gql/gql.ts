/* eslint-disable */
import * as types from './graphql';
import type { TypedDocumentNode as DocumentNode } from '@graphql-typed-document-node/core';

/**
 * Map of all GraphQL operations in the project.
 *
 * This map has several performance disadvantages:
 * 1. It is not tree-shakeable, so it will include all operations in the project.
 * 2. It is not minifiable, so the string of a GraphQL query will be multiple times inside the bundle.
 * 3. It does not support dead code elimination, so it will add unused operations.
 *
 * Therefore it is highly recommended to use the babel or swc plugin for production.
 * Learn more about it here: https://the-guild.dev/graphql/codegen/plugins/presets/preset-client#reducing-bundle-size
 */
type Documents = {
    "\n  query AppViewer {\n    viewer {\n      subject\n    }\n  }\n": typeof types.AppViewerDocument,
    "\n  fragment ActivityDeployment on Deployment {\n    id\n    tenant\n    application\n    environment\n    state\n    requester\n    createdAt\n    startedAt\n    finishedAt\n    updatedAt\n    startAt\n    dryRun\n    artifact {\n      name\n      version\n    }\n    currentStep\n    error\n    plan {\n      steps {\n        name\n        maxRetries\n      }\n    }\n    steps {\n      name\n      state\n      kind\n      position\n      attempts\n    }\n  }\n": typeof types.ActivityDeploymentFragmentDoc,
    "\n  query ActivityPage {\n    activity(first: 200) {\n      ...ActivityDeployment\n    }\n    recent: deployments(first: 25) {\n      nodes {\n        ...ActivityDeployment\n      }\n    }\n  }\n": typeof types.ActivityPageDocument,
    "\n  subscription ActivityFeed {\n    activity {\n      kind\n      deployment {\n        ...ActivityDeployment\n      }\n    }\n  }\n": typeof types.ActivityFeedDocument,
    "\n  fragment ApprovalView on Deployment {\n    id\n    tenant\n    application\n    environment\n    state\n    requester\n    createdAt\n    updatedAt\n    artifact {\n      name\n      version\n    }\n    decision {\n      rule\n      requires\n      reason\n      approvalsRequired\n      approvalGroups\n      change\n      freeze\n      promotionFrom\n      promotionSatisfiedBy\n    }\n    approval {\n      status\n      required\n      groups\n      expiresAt\n      approvals {\n        identity\n        approved\n        comment\n        time\n      }\n    }\n    canApprove\n  }\n": typeof types.ApprovalViewFragmentDoc,
    "\n  query PendingApprovals {\n    pendingApprovals {\n      ...ApprovalView\n    }\n  }\n": typeof types.PendingApprovalsDocument,
    "\n  subscription PendingApprovalsLive {\n    pendingApprovals {\n      ...ApprovalView\n    }\n  }\n": typeof types.PendingApprovalsLiveDocument,
    "\n  mutation ApproveDeployment($id: ID!, $comment: String) {\n    approveDeployment(id: $id, comment: $comment) {\n      ...ApprovalView\n    }\n  }\n": typeof types.ApproveDeploymentDocument,
    "\n  mutation RejectDeployment($id: ID!, $comment: String) {\n    rejectDeployment(id: $id, comment: $comment) {\n      ...ApprovalView\n    }\n  }\n": typeof types.RejectDeploymentDocument,
    "\n  fragment DeploymentView on Deployment {\n    id\n    tenant\n    application\n    environment\n    state\n    requester\n    createdAt\n    startedAt\n    finishedAt\n    updatedAt\n    startAt\n    dryRun\n    release\n    artifact {\n      type\n      name\n      version\n      source\n      pinnedSha256\n    }\n    sha256\n    labels {\n      key\n      value\n    }\n    plan {\n      steps {\n        name\n        type\n        maxRetries\n        timeoutSeconds\n        mandatory\n      }\n    }\n    effective {\n      plugin\n      targets {\n        name\n        host\n        port\n        user\n        path\n      }\n      healthChecks\n      secretNames\n      configSource\n      configRevision\n      rollback {\n        enabled\n        on\n      }\n    }\n    decision {\n      rule\n      requires\n      reason\n      approvalsRequired\n      approvalGroups\n      change\n      freeze\n      promotionFrom\n      promotionSatisfiedBy\n    }\n    approval {\n      status\n      required\n      groups\n      expiresAt\n      approvals {\n        identity\n        approved\n        comment\n        time\n      }\n    }\n    after {\n      status\n      expiresAt\n      reason\n      dependencies {\n        id\n        state\n      }\n    }\n    dependents {\n      id\n      state\n    }\n    exports {\n      name\n      format\n      value\n      public\n    }\n    currentStep\n    error\n    cancelRequested\n    cancelledBy\n    canCancel\n    canApprove\n    steps {\n      ...StepView\n    }\n    rollback {\n      state\n      steps {\n        ...StepView\n      }\n    }\n  }\n": typeof types.DeploymentViewFragmentDoc,
    "\n  fragment StepView on Step {\n    name\n    kind\n    pass\n    batch\n    target\n    position\n    type\n    state\n    attempts\n    startedAt\n    finishedAt\n    durationMs\n    output {\n      key\n      value\n    }\n    error\n  }\n": typeof types.StepViewFragmentDoc,
    "\n  fragment LogLineView on LogLine {\n    seq\n    time\n    step\n    level\n    message\n  }\n": typeof types.LogLineViewFragmentDoc,
    "\n  query DeploymentPage($id: ID!) {\n    deployment(id: $id) {\n      ...DeploymentView\n      logs(after: 0, limit: 1000) {\n        lines {\n          ...LogLineView\n        }\n        lastSeq\n      }\n    }\n  }\n": typeof types.DeploymentPageDocument,
    "\n  subscription DeploymentLive($id: ID!, $logsAfter: Int) {\n    deploymentEvents(id: $id, logsAfter: $logsAfter) {\n      kind\n      deployment {\n        ...DeploymentView\n      }\n      logLines {\n        ...LogLineView\n      }\n    }\n  }\n": typeof types.DeploymentLiveDocument,
    "\n  subscription DependentsFeed {\n    activity {\n      deployment {\n        id\n        state\n        after {\n          dependencies {\n            id\n          }\n        }\n      }\n    }\n  }\n": typeof types.DependentsFeedDocument,
    "\n  mutation CancelDeployment($id: ID!) {\n    cancelDeployment(id: $id) {\n      ...DeploymentView\n    }\n  }\n": typeof types.CancelDeploymentDocument,
    "\n  query DeploymentsPage($filter: DeploymentFilter, $first: Int, $after: String) {\n    deployments(filter: $filter, first: $first, after: $after) {\n      edges {\n        cursor\n        node {\n          id\n          tenant\n          application\n          environment\n          state\n          requester\n          createdAt\n          startedAt\n          finishedAt\n          dryRun\n          artifact {\n            name\n            version\n          }\n          currentStep\n          error\n        }\n      }\n      pageInfo {\n        hasNextPage\n        endCursor\n      }\n    }\n  }\n": typeof types.DeploymentsPageDocument,
    "\n  query DeploymentsSuggestions {\n    inventory {\n      tenant\n      application\n      environment\n    }\n  }\n": typeof types.DeploymentsSuggestionsDocument,
    "\n  fragment InventoryCell on InventoryEntry {\n    tenant\n    application\n    environment\n    deploymentId\n    artifact {\n      name\n      version\n    }\n    sha256\n    deployedAt\n    deployedBy\n    lastFailure {\n      deploymentId\n      step\n      error\n      finishedAt\n      rollback\n    }\n  }\n": typeof types.InventoryCellFragmentDoc,
    "\n  query EnvironmentsPage {\n    inventory {\n      ...InventoryCell\n    }\n    activity(first: 200) {\n      ...InFlight\n    }\n  }\n": typeof types.EnvironmentsPageDocument,
    "\n  query EnvironmentInventory {\n    inventory {\n      ...InventoryCell\n    }\n  }\n": typeof types.EnvironmentInventoryDocument,
    "\n  fragment InFlight on Deployment {\n    id\n    tenant\n    application\n    environment\n    state\n    updatedAt\n    artifact {\n      version\n    }\n    currentStep\n  }\n": typeof types.InFlightFragmentDoc,
    "\n  subscription EnvironmentsFeed {\n    activity {\n      kind\n      deployment {\n        ...InFlight\n      }\n    }\n  }\n": typeof types.EnvironmentsFeedDocument,
    "\n  fragment FreezeWindowView on FreezeWindow {\n    rule\n    start\n    end\n    recurring\n    cron\n    timeZone\n  }\n": typeof types.FreezeWindowViewFragmentDoc,
    "\n  query FreezeCalendar($tenant: String, $application: String!, $environment: String!, $to: Time) {\n    freezeCalendar(tenant: $tenant, application: $application, environment: $environment, to: $to) {\n      from\n      to\n      windows {\n        ...FreezeWindowView\n      }\n    }\n  }\n": typeof types.FreezeCalendarDocument,
    "\n  query EnvironmentsFreezes($environments: [EnvironmentRef!]!) {\n    freezeCalendars(environments: $environments) {\n      tenant\n      application\n      environment\n      calendar {\n        from\n        to\n        windows {\n          ...FreezeWindowView\n        }\n      }\n    }\n  }\n": typeof types.EnvironmentsFreezesDocument,
    "\n  fragment ReleaseView on Release {\n    id\n    state\n    onFailure\n    requester\n    createdAt\n    finishedAt\n    error\n    deploys {\n      name\n      deploymentId\n      state\n      error\n      after\n      rollbackState\n      rollbackDeploymentId\n      rollbackError\n      deployment {\n        id\n        application\n        environment\n        updatedAt\n        artifact {\n          version\n        }\n        currentStep\n        exports {\n          name\n          format\n          value\n        }\n        imports {\n          name\n          deploymentId\n          exports\n        }\n      }\n    }\n    edges {\n      from\n      to\n    }\n  }\n": typeof types.ReleaseViewFragmentDoc,
    "\n  query ReleasesPage($first: Int!) {\n    releases(first: $first) {\n      nodes {\n        id\n        state\n        onFailure\n        requester\n        createdAt\n        finishedAt\n        error\n        deploys {\n          name\n          state\n        }\n      }\n    }\n  }\n": typeof types.ReleasesPageDocument,
    "\n  query ReleasePage($id: ID!) {\n    release(id: $id) {\n      ...ReleaseView\n    }\n  }\n": typeof types.ReleasePageDocument,
    "\n  subscription ReleaseLive($id: ID!) {\n    releaseEvents(id: $id) {\n      ...ReleaseView\n    }\n  }\n": typeof types.ReleaseLiveDocument,
    "\n  query SignInViewer {\n    viewer {\n      subject\n    }\n  }\n": typeof types.SignInViewerDocument,
    "\n  fragment WallDeployment on Deployment {\n    id\n    tenant\n    application\n    environment\n    state\n    requester\n    createdAt\n    startedAt\n    finishedAt\n    updatedAt\n    startAt\n    dryRun\n    artifact {\n      version\n    }\n    currentStep\n    error\n    plan {\n      steps {\n        name\n        maxRetries\n      }\n    }\n    steps {\n      name\n      state\n      kind\n      position\n      attempts\n      error\n    }\n  }\n": typeof types.WallDeploymentFragmentDoc,
    "\n  query Wall($failedStates: [DeploymentState!], $since: Time) {\n    activity(first: 200) {\n      ...WallDeployment\n    }\n    failed: deployments(filter: { states: $failedStates, createdAfter: $since }, first: 30) {\n      nodes {\n        ...WallDeployment\n      }\n    }\n    inService: inventory {\n      tenant\n      application\n      environment\n      deployedAt\n    }\n  }\n": typeof types.WallDocument,
    "\n  subscription WallFeed {\n    activity {\n      kind\n      deployment {\n        ...WallDeployment\n      }\n    }\n  }\n": typeof types.WallFeedDocument,
};
const documents: Documents = {
    "\n  query AppViewer {\n    viewer {\n      subject\n    }\n  }\n": types.AppViewerDocument,
    "\n  fragment ActivityDeployment on Deployment {\n    id\n    tenant\n    application\n    environment\n    state\n    requester\n    createdAt\n    startedAt\n    finishedAt\n    updatedAt\n    startAt\n    dryRun\n    artifact {\n      name\n      version\n    }\n    currentStep\n    error\n    plan {\n      steps {\n        name\n        maxRetries\n      }\n    }\n    steps {\n      name\n      state\n      kind\n      position\n      attempts\n    }\n  }\n": types.ActivityDeploymentFragmentDoc,
    "\n  query ActivityPage {\n    activity(first: 200) {\n      ...ActivityDeployment\n    }\n    recent: deployments(first: 25) {\n      nodes {\n        ...ActivityDeployment\n      }\n    }\n  }\n": types.ActivityPageDocument,
    "\n  subscription ActivityFeed {\n    activity {\n      kind\n      deployment {\n        ...ActivityDeployment\n      }\n    }\n  }\n": types.ActivityFeedDocument,
    "\n  fragment ApprovalView on Deployment {\n    id\n    tenant\n    application\n    environment\n    state\n    requester\n    createdAt\n    updatedAt\n    artifact {\n      name\n      version\n    }\n    decision {\n      rule\n      requires\n      reason\n      approvalsRequired\n      approvalGroups\n      change\n      freeze\n      promotionFrom\n      promotionSatisfiedBy\n    }\n    approval {\n      status\n      required\n      groups\n      expiresAt\n      approvals {\n        identity\n        approved\n        comment\n        time\n      }\n    }\n    canApprove\n  }\n": types.ApprovalViewFragmentDoc,
    "\n  query PendingApprovals {\n    pendingApprovals {\n      ...ApprovalView\n    }\n  }\n": types.PendingApprovalsDocument,
    "\n  subscription PendingApprovalsLive {\n    pendingApprovals {\n      ...ApprovalView\n    }\n  }\n": types.PendingApprovalsLiveDocument,
    "\n  mutation ApproveDeployment($id: ID!, $comment: String) {\n    approveDeployment(id: $id, comment: $comment) {\n      ...ApprovalView\n    }\n  }\n": types.ApproveDeploymentDocument,
    "\n  mutation RejectDeployment($id: ID!, $comment: String) {\n    rejectDeployment(id: $id, comment: $comment) {\n      ...ApprovalView\n    }\n  }\n": types.RejectDeploymentDocument,
    "\n  fragment DeploymentView on Deployment {\n    id\n    tenant\n    application\n    environment\n    state\n    requester\n    createdAt\n    startedAt\n    finishedAt\n    updatedAt\n    startAt\n    dryRun\n    release\n    artifact {\n      type\n      name\n      version\n      source\n      pinnedSha256\n    }\n    sha256\n    labels {\n      key\n      value\n    }\n    plan {\n      steps {\n        name\n        type\n        maxRetries\n        timeoutSeconds\n        mandatory\n      }\n    }\n    effective {\n      plugin\n      targets {\n        name\n        host\n        port\n        user\n        path\n      }\n      healthChecks\n      secretNames\n      configSource\n      configRevision\n      rollback {\n        enabled\n        on\n      }\n    }\n    decision {\n      rule\n      requires\n      reason\n      approvalsRequired\n      approvalGroups\n      change\n      freeze\n      promotionFrom\n      promotionSatisfiedBy\n    }\n    approval {\n      status\n      required\n      groups\n      expiresAt\n      approvals {\n        identity\n        approved\n        comment\n        time\n      }\n    }\n    after {\n      status\n      expiresAt\n      reason\n      dependencies {\n        id\n        state\n      }\n    }\n    dependents {\n      id\n      state\n    }\n    exports {\n      name\n      format\n      value\n      public\n    }\n    currentStep\n    error\n    cancelRequested\n    cancelledBy\n    canCancel\n    canApprove\n    steps {\n      ...StepView\n    }\n    rollback {\n      state\n      steps {\n        ...StepView\n      }\n    }\n  }\n": types.DeploymentViewFragmentDoc,
    "\n  fragment StepView on Step {\n    name\n    kind\n    pass\n    batch\n    target\n    position\n    type\n    state\n    attempts\n    startedAt\n    finishedAt\n    durationMs\n    output {\n      key\n      value\n    }\n    error\n  }\n": types.StepViewFragmentDoc,
    "\n  fragment LogLineView on LogLine {\n    seq\n    time\n    step\n    level\n    message\n  }\n": types.LogLineViewFragmentDoc,
    "\n  query DeploymentPage($id: ID!) {\n    deployment(id: $id) {\n      ...DeploymentView\n      logs(after: 0, limit: 1000) {\n        lines {\n          ...LogLineView\n        }\n        lastSeq\n      }\n    }\n  }\n": types.DeploymentPageDocument,
    "\n  subscription DeploymentLive($id: ID!, $logsAfter: Int) {\n    deploymentEvents(id: $id, logsAfter: $logsAfter) {\n      kind\n      deployment {\n        ...DeploymentView\n      }\n      logLines {\n        ...LogLineView\n      }\n    }\n  }\n": types.DeploymentLiveDocument,
    "\n  subscription DependentsFeed {\n    activity {\n      deployment {\n        id\n        state\n        after {\n          dependencies {\n            id\n          }\n        }\n      }\n    }\n  }\n": types.DependentsFeedDocument,
    "\n  mutation CancelDeployment($id: ID!) {\n    cancelDeployment(id: $id) {\n      ...DeploymentView\n    }\n  }\n": types.CancelDeploymentDocument,
    "\n  query DeploymentsPage($filter: DeploymentFilter, $first: Int, $after: String) {\n    deployments(filter: $filter, first: $first, after: $after) {\n      edges {\n        cursor\n        node {\n          id\n          tenant\n          application\n          environment\n          state\n          requester\n          createdAt\n          startedAt\n          finishedAt\n          dryRun\n          artifact {\n            name\n            version\n          }\n          currentStep\n          error\n        }\n      }\n      pageInfo {\n        hasNextPage\n        endCursor\n      }\n    }\n  }\n": types.DeploymentsPageDocument,
    "\n  query DeploymentsSuggestions {\n    inventory {\n      tenant\n      application\n      environment\n    }\n  }\n": types.DeploymentsSuggestionsDocument,
    "\n  fragment InventoryCell on InventoryEntry {\n    tenant\n    application\n    environment\n    deploymentId\n    artifact {\n      name\n      version\n    }\n    sha256\n    deployedAt\n    deployedBy\n    lastFailure {\n      deploymentId\n      step\n      error\n      finishedAt\n      rollback\n    }\n  }\n": types.InventoryCellFragmentDoc,
    "\n  query EnvironmentsPage {\n    inventory {\n      ...InventoryCell\n    }\n    activity(first: 200) {\n      ...InFlight\n    }\n  }\n": types.EnvironmentsPageDocument,
    "\n  query EnvironmentInventory {\n    inventory {\n      ...InventoryCell\n    }\n  }\n": types.EnvironmentInventoryDocument,
    "\n  fragment InFlight on Deployment {\n    id\n    tenant\n    application\n    environment\n    state\n    updatedAt\n    artifact {\n      version\n    }\n    currentStep\n  }\n": types.InFlightFragmentDoc,
    "\n  subscription EnvironmentsFeed {\n    activity {\n      kind\n      deployment {\n        ...InFlight\n      }\n    }\n  }\n": types.EnvironmentsFeedDocument,
    "\n  fragment FreezeWindowView on FreezeWindow {\n    rule\n    start\n    end\n    recurring\n    cron\n    timeZone\n  }\n": types.FreezeWindowViewFragmentDoc,
    "\n  query FreezeCalendar($tenant: String, $application: String!, $environment: String!, $to: Time) {\n    freezeCalendar(tenant: $tenant, application: $application, environment: $environment, to: $to) {\n      from\n      to\n      windows {\n        ...FreezeWindowView\n      }\n    }\n  }\n": types.FreezeCalendarDocument,
    "\n  query EnvironmentsFreezes($environments: [EnvironmentRef!]!) {\n    freezeCalendars(environments: $environments) {\n      tenant\n      application\n      environment\n      calendar {\n        from\n        to\n        windows {\n          ...FreezeWindowView\n        }\n      }\n    }\n  }\n": types.EnvironmentsFreezesDocument,
    "\n  fragment ReleaseView on Release {\n    id\n    state\n    onFailure\n    requester\n    createdAt\n    finishedAt\n    error\n    deploys {\n      name\n      deploymentId\n      state\n      error\n      after\n      rollbackState\n      rollbackDeploymentId\n      rollbackError\n      deployment {\n        id\n        application\n        environment\n        updatedAt\n        artifact {\n          version\n        }\n        currentStep\n        exports {\n          name\n          format\n          value\n        }\n        imports {\n          name\n          deploymentId\n          exports\n        }\n      }\n    }\n    edges {\n      from\n      to\n    }\n  }\n": types.ReleaseViewFragmentDoc,
    "\n  query ReleasesPage($first: Int!) {\n    releases(first: $first) {\n      nodes {\n        id\n        state\n        onFailure\n        requester\n        createdAt\n        finishedAt\n        error\n        deploys {\n          name\n          state\n        }\n      }\n    }\n  }\n": types.ReleasesPageDocument,
    "\n  query ReleasePage($id: ID!) {\n    release(id: $id) {\n      ...ReleaseView\n    }\n  }\n": types.ReleasePageDocument,
    "\n  subscription ReleaseLive($id: ID!) {\n    releaseEvents(id: $id) {\n      ...ReleaseView\n    }\n  }\n": types.ReleaseLiveDocument,
    "\n  query SignInViewer {\n    viewer {\n      subject\n    }\n  }\n": types.SignInViewerDocument,
    "\n  fragment WallDeployment on Deployment {\n    id\n    tenant\n    application\n    environment\n    state\n    requester\n    createdAt\n    startedAt\n    finishedAt\n    updatedAt\n    startAt\n    dryRun\n    artifact {\n      version\n    }\n    currentStep\n    error\n    plan {\n      steps {\n        name\n        maxRetries\n      }\n    }\n    steps {\n      name\n      state\n      kind\n      position\n      attempts\n      error\n    }\n  }\n": types.WallDeploymentFragmentDoc,
    "\n  query Wall($failedStates: [DeploymentState!], $since: Time) {\n    activity(first: 200) {\n      ...WallDeployment\n    }\n    failed: deployments(filter: { states: $failedStates, createdAfter: $since }, first: 30) {\n      nodes {\n        ...WallDeployment\n      }\n    }\n    inService: inventory {\n      tenant\n      application\n      environment\n      deployedAt\n    }\n  }\n": types.WallDocument,
    "\n  subscription WallFeed {\n    activity {\n      kind\n      deployment {\n        ...WallDeployment\n      }\n    }\n  }\n": types.WallFeedDocument,
};

/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 *
 *
 * @example
 * ```ts
 * const query = graphql(`query GetUser($id: ID!) { user(id: $id) { name } }`);
 * ```
 *
 * The query argument is unknown!
 * Please regenerate the types.
 */
export function graphql(source: string): unknown;

/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query AppViewer {\n    viewer {\n      subject\n    }\n  }\n"): (typeof documents)["\n  query AppViewer {\n    viewer {\n      subject\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  fragment ActivityDeployment on Deployment {\n    id\n    tenant\n    application\n    environment\n    state\n    requester\n    createdAt\n    startedAt\n    finishedAt\n    updatedAt\n    startAt\n    dryRun\n    artifact {\n      name\n      version\n    }\n    currentStep\n    error\n    plan {\n      steps {\n        name\n        maxRetries\n      }\n    }\n    steps {\n      name\n      state\n      kind\n      position\n      attempts\n    }\n  }\n"): (typeof documents)["\n  fragment ActivityDeployment on Deployment {\n    id\n    tenant\n    application\n    environment\n    state\n    requester\n    createdAt\n    startedAt\n    finishedAt\n    updatedAt\n    startAt\n    dryRun\n    artifact {\n      name\n      version\n    }\n    currentStep\n    error\n    plan {\n      steps {\n        name\n        maxRetries\n      }\n    }\n    steps {\n      name\n      state\n      kind\n      position\n      attempts\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query ActivityPage {\n    activity(first: 200) {\n      ...ActivityDeployment\n    }\n    recent: deployments(first: 25) {\n      nodes {\n        ...ActivityDeployment\n      }\n    }\n  }\n"): (typeof documents)["\n  query ActivityPage {\n    activity(first: 200) {\n      ...ActivityDeployment\n    }\n    recent: deployments(first: 25) {\n      nodes {\n        ...ActivityDeployment\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  subscription ActivityFeed {\n    activity {\n      kind\n      deployment {\n        ...ActivityDeployment\n      }\n    }\n  }\n"): (typeof documents)["\n  subscription ActivityFeed {\n    activity {\n      kind\n      deployment {\n        ...ActivityDeployment\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  fragment ApprovalView on Deployment {\n    id\n    tenant\n    application\n    environment\n    state\n    requester\n    createdAt\n    updatedAt\n    artifact {\n      name\n      version\n    }\n    decision {\n      rule\n      requires\n      reason\n      approvalsRequired\n      approvalGroups\n      change\n      freeze\n      promotionFrom\n      promotionSatisfiedBy\n    }\n    approval {\n      status\n      required\n      groups\n      expiresAt\n      approvals {\n        identity\n        approved\n        comment\n        time\n      }\n    }\n    canApprove\n  }\n"): (typeof documents)["\n  fragment ApprovalView on Deployment {\n    id\n    tenant\n    application\n    environment\n    state\n    requester\n    createdAt\n    updatedAt\n    artifact {\n      name\n      version\n    }\n    decision {\n      rule\n      requires\n      reason\n      approvalsRequired\n      approvalGroups\n      change\n      freeze\n      promotionFrom\n      promotionSatisfiedBy\n    }\n    approval {\n      status\n      required\n      groups\n      expiresAt\n      approvals {\n        identity\n        approved\n        comment\n        time\n      }\n    }\n    canApprove\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query PendingApprovals {\n    pendingApprovals {\n      ...ApprovalView\n    }\n  }\n"): (typeof documents)["\n  query PendingApprovals {\n    pendingApprovals {\n      ...ApprovalView\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  subscription PendingApprovalsLive {\n    pendingApprovals {\n      ...ApprovalView\n    }\n  }\n"): (typeof documents)["\n  subscription PendingApprovalsLive {\n    pendingApprovals {\n      ...ApprovalView\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation ApproveDeployment($id: ID!, $comment: String) {\n    approveDeployment(id: $id, comment: $comment) {\n      ...ApprovalView\n    }\n  }\n"): (typeof documents)["\n  mutation ApproveDeployment($id: ID!, $comment: String) {\n    approveDeployment(id: $id, comment: $comment) {\n      ...ApprovalView\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation RejectDeployment($id: ID!, $comment: String) {\n    rejectDeployment(id: $id, comment: $comment) {\n      ...ApprovalView\n    }\n  }\n"): (typeof documents)["\n  mutation RejectDeployment($id: ID!, $comment: String) {\n    rejectDeployment(id: $id, comment: $comment) {\n      ...ApprovalView\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  fragment DeploymentView on Deployment {\n    id\n    tenant\n    application\n    environment\n    state\n    requester\n    createdAt\n    startedAt\n    finishedAt\n    updatedAt\n    startAt\n    dryRun\n    release\n    artifact {\n      type\n      name\n      version\n      source\n      pinnedSha256\n    }\n    sha256\n    labels {\n      key\n      value\n    }\n    plan {\n      steps {\n        name\n        type\n        maxRetries\n        timeoutSeconds\n        mandatory\n      }\n    }\n    effective {\n      plugin\n      targets {\n        name\n        host\n        port\n        user\n        path\n      }\n      healthChecks\n      secretNames\n      configSource\n      configRevision\n      rollback {\n        enabled\n        on\n      }\n    }\n    decision {\n      rule\n      requires\n      reason\n      approvalsRequired\n      approvalGroups\n      change\n      freeze\n      promotionFrom\n      promotionSatisfiedBy\n    }\n    approval {\n      status\n      required\n      groups\n      expiresAt\n      approvals {\n        identity\n        approved\n        comment\n        time\n      }\n    }\n    after {\n      status\n      expiresAt\n      reason\n      dependencies {\n        id\n        state\n      }\n    }\n    dependents {\n      id\n      state\n    }\n    exports {\n      name\n      format\n      value\n      public\n    }\n    currentStep\n    error\n    cancelRequested\n    cancelledBy\n    canCancel\n    canApprove\n    steps {\n      ...StepView\n    }\n    rollback {\n      state\n      steps {\n        ...StepView\n      }\n    }\n  }\n"): (typeof documents)["\n  fragment DeploymentView on Deployment {\n    id\n    tenant\n    application\n    environment\n    state\n    requester\n    createdAt\n    startedAt\n    finishedAt\n    updatedAt\n    startAt\n    dryRun\n    release\n    artifact {\n      type\n      name\n      version\n      source\n      pinnedSha256\n    }\n    sha256\n    labels {\n      key\n      value\n    }\n    plan {\n      steps {\n        name\n        type\n        maxRetries\n        timeoutSeconds\n        mandatory\n      }\n    }\n    effective {\n      plugin\n      targets {\n        name\n        host\n        port\n        user\n        path\n      }\n      healthChecks\n      secretNames\n      configSource\n      configRevision\n      rollback {\n        enabled\n        on\n      }\n    }\n    decision {\n      rule\n      requires\n      reason\n      approvalsRequired\n      approvalGroups\n      change\n      freeze\n      promotionFrom\n      promotionSatisfiedBy\n    }\n    approval {\n      status\n      required\n      groups\n      expiresAt\n      approvals {\n        identity\n        approved\n        comment\n        time\n      }\n    }\n    after {\n      status\n      expiresAt\n      reason\n      dependencies {\n        id\n        state\n      }\n    }\n    dependents {\n      id\n      state\n    }\n    exports {\n      name\n      format\n      value\n      public\n    }\n    currentStep\n    error\n    cancelRequested\n    cancelledBy\n    canCancel\n    canApprove\n    steps {\n      ...StepView\n    }\n    rollback {\n      state\n      steps {\n        ...StepView\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  fragment StepView on Step {\n    name\n    kind\n    pass\n    batch\n    target\n    position\n    type\n    state\n    attempts\n    startedAt\n    finishedAt\n    durationMs\n    output {\n      key\n      value\n    }\n    error\n  }\n"): (typeof documents)["\n  fragment StepView on Step {\n    name\n    kind\n    pass\n    batch\n    target\n    position\n    type\n    state\n    attempts\n    startedAt\n    finishedAt\n    durationMs\n    output {\n      key\n      value\n    }\n    error\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  fragment LogLineView on LogLine {\n    seq\n    time\n    step\n    level\n    message\n  }\n"): (typeof documents)["\n  fragment LogLineView on LogLine {\n    seq\n    time\n    step\n    level\n    message\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query DeploymentPage($id: ID!) {\n    deployment(id: $id) {\n      ...DeploymentView\n      logs(after: 0, limit: 1000) {\n        lines {\n          ...LogLineView\n        }\n        lastSeq\n      }\n    }\n  }\n"): (typeof documents)["\n  query DeploymentPage($id: ID!) {\n    deployment(id: $id) {\n      ...DeploymentView\n      logs(after: 0, limit: 1000) {\n        lines {\n          ...LogLineView\n        }\n        lastSeq\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  subscription DeploymentLive($id: ID!, $logsAfter: Int) {\n    deploymentEvents(id: $id, logsAfter: $logsAfter) {\n      kind\n      deployment {\n        ...DeploymentView\n      }\n      logLines {\n        ...LogLineView\n      }\n    }\n  }\n"): (typeof documents)["\n  subscription DeploymentLive($id: ID!, $logsAfter: Int) {\n    deploymentEvents(id: $id, logsAfter: $logsAfter) {\n      kind\n      deployment {\n        ...DeploymentView\n      }\n      logLines {\n        ...LogLineView\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  subscription DependentsFeed {\n    activity {\n      deployment {\n        id\n        state\n        after {\n          dependencies {\n            id\n          }\n        }\n      }\n    }\n  }\n"): (typeof documents)["\n  subscription DependentsFeed {\n    activity {\n      deployment {\n        id\n        state\n        after {\n          dependencies {\n            id\n          }\n        }\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation CancelDeployment($id: ID!) {\n    cancelDeployment(id: $id) {\n      ...DeploymentView\n    }\n  }\n"): (typeof documents)["\n  mutation CancelDeployment($id: ID!) {\n    cancelDeployment(id: $id) {\n      ...DeploymentView\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query DeploymentsPage($filter: DeploymentFilter, $first: Int, $after: String) {\n    deployments(filter: $filter, first: $first, after: $after) {\n      edges {\n        cursor\n        node {\n          id\n          tenant\n          application\n          environment\n          state\n          requester\n          createdAt\n          startedAt\n          finishedAt\n          dryRun\n          artifact {\n            name\n            version\n          }\n          currentStep\n          error\n        }\n      }\n      pageInfo {\n        hasNextPage\n        endCursor\n      }\n    }\n  }\n"): (typeof documents)["\n  query DeploymentsPage($filter: DeploymentFilter, $first: Int, $after: String) {\n    deployments(filter: $filter, first: $first, after: $after) {\n      edges {\n        cursor\n        node {\n          id\n          tenant\n          application\n          environment\n          state\n          requester\n          createdAt\n          startedAt\n          finishedAt\n          dryRun\n          artifact {\n            name\n            version\n          }\n          currentStep\n          error\n        }\n      }\n      pageInfo {\n        hasNextPage\n        endCursor\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query DeploymentsSuggestions {\n    inventory {\n      tenant\n      application\n      environment\n    }\n  }\n"): (typeof documents)["\n  query DeploymentsSuggestions {\n    inventory {\n      tenant\n      application\n      environment\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  fragment InventoryCell on InventoryEntry {\n    tenant\n    application\n    environment\n    deploymentId\n    artifact {\n      name\n      version\n    }\n    sha256\n    deployedAt\n    deployedBy\n    lastFailure {\n      deploymentId\n      step\n      error\n      finishedAt\n      rollback\n    }\n  }\n"): (typeof documents)["\n  fragment InventoryCell on InventoryEntry {\n    tenant\n    application\n    environment\n    deploymentId\n    artifact {\n      name\n      version\n    }\n    sha256\n    deployedAt\n    deployedBy\n    lastFailure {\n      deploymentId\n      step\n      error\n      finishedAt\n      rollback\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query EnvironmentsPage {\n    inventory {\n      ...InventoryCell\n    }\n    activity(first: 200) {\n      ...InFlight\n    }\n  }\n"): (typeof documents)["\n  query EnvironmentsPage {\n    inventory {\n      ...InventoryCell\n    }\n    activity(first: 200) {\n      ...InFlight\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query EnvironmentInventory {\n    inventory {\n      ...InventoryCell\n    }\n  }\n"): (typeof documents)["\n  query EnvironmentInventory {\n    inventory {\n      ...InventoryCell\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  fragment InFlight on Deployment {\n    id\n    tenant\n    application\n    environment\n    state\n    updatedAt\n    artifact {\n      version\n    }\n    currentStep\n  }\n"): (typeof documents)["\n  fragment InFlight on Deployment {\n    id\n    tenant\n    application\n    environment\n    state\n    updatedAt\n    artifact {\n      version\n    }\n    currentStep\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  subscription EnvironmentsFeed {\n    activity {\n      kind\n      deployment {\n        ...InFlight\n      }\n    }\n  }\n"): (typeof documents)["\n  subscription EnvironmentsFeed {\n    activity {\n      kind\n      deployment {\n        ...InFlight\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  fragment FreezeWindowView on FreezeWindow {\n    rule\n    start\n    end\n    recurring\n    cron\n    timeZone\n  }\n"): (typeof documents)["\n  fragment FreezeWindowView on FreezeWindow {\n    rule\n    start\n    end\n    recurring\n    cron\n    timeZone\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query FreezeCalendar($tenant: String, $application: String!, $environment: String!, $to: Time) {\n    freezeCalendar(tenant: $tenant, application: $application, environment: $environment, to: $to) {\n      from\n      to\n      windows {\n        ...FreezeWindowView\n      }\n    }\n  }\n"): (typeof documents)["\n  query FreezeCalendar($tenant: String, $application: String!, $environment: String!, $to: Time) {\n    freezeCalendar(tenant: $tenant, application: $application, environment: $environment, to: $to) {\n      from\n      to\n      windows {\n        ...FreezeWindowView\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query EnvironmentsFreezes($environments: [EnvironmentRef!]!) {\n    freezeCalendars(environments: $environments) {\n      tenant\n      application\n      environment\n      calendar {\n        from\n        to\n        windows {\n          ...FreezeWindowView\n        }\n      }\n    }\n  }\n"): (typeof documents)["\n  query EnvironmentsFreezes($environments: [EnvironmentRef!]!) {\n    freezeCalendars(environments: $environments) {\n      tenant\n      application\n      environment\n      calendar {\n        from\n        to\n        windows {\n          ...FreezeWindowView\n        }\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  fragment ReleaseView on Release {\n    id\n    state\n    onFailure\n    requester\n    createdAt\n    finishedAt\n    error\n    deploys {\n      name\n      deploymentId\n      state\n      error\n      after\n      rollbackState\n      rollbackDeploymentId\n      rollbackError\n      deployment {\n        id\n        application\n        environment\n        updatedAt\n        artifact {\n          version\n        }\n        currentStep\n        exports {\n          name\n          format\n          value\n        }\n        imports {\n          name\n          deploymentId\n          exports\n        }\n      }\n    }\n    edges {\n      from\n      to\n    }\n  }\n"): (typeof documents)["\n  fragment ReleaseView on Release {\n    id\n    state\n    onFailure\n    requester\n    createdAt\n    finishedAt\n    error\n    deploys {\n      name\n      deploymentId\n      state\n      error\n      after\n      rollbackState\n      rollbackDeploymentId\n      rollbackError\n      deployment {\n        id\n        application\n        environment\n        updatedAt\n        artifact {\n          version\n        }\n        currentStep\n        exports {\n          name\n          format\n          value\n        }\n        imports {\n          name\n          deploymentId\n          exports\n        }\n      }\n    }\n    edges {\n      from\n      to\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query ReleasesPage($first: Int!) {\n    releases(first: $first) {\n      nodes {\n        id\n        state\n        onFailure\n        requester\n        createdAt\n        finishedAt\n        error\n        deploys {\n          name\n          state\n        }\n      }\n    }\n  }\n"): (typeof documents)["\n  query ReleasesPage($first: Int!) {\n    releases(first: $first) {\n      nodes {\n        id\n        state\n        onFailure\n        requester\n        createdAt\n        finishedAt\n        error\n        deploys {\n          name\n          state\n        }\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query ReleasePage($id: ID!) {\n    release(id: $id) {\n      ...ReleaseView\n    }\n  }\n"): (typeof documents)["\n  query ReleasePage($id: ID!) {\n    release(id: $id) {\n      ...ReleaseView\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  subscription ReleaseLive($id: ID!) {\n    releaseEvents(id: $id) {\n      ...ReleaseView\n    }\n  }\n"): (typeof documents)["\n  subscription ReleaseLive($id: ID!) {\n    releaseEvents(id: $id) {\n      ...ReleaseView\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query SignInViewer {\n    viewer {\n      subject\n    }\n  }\n"): (typeof documents)["\n  query SignInViewer {\n    viewer {\n      subject\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  fragment WallDeployment on Deployment {\n    id\n    tenant\n    application\n    environment\n    state\n    requester\n    createdAt\n    startedAt\n    finishedAt\n    updatedAt\n    startAt\n    dryRun\n    artifact {\n      version\n    }\n    currentStep\n    error\n    plan {\n      steps {\n        name\n        maxRetries\n      }\n    }\n    steps {\n      name\n      state\n      kind\n      position\n      attempts\n      error\n    }\n  }\n"): (typeof documents)["\n  fragment WallDeployment on Deployment {\n    id\n    tenant\n    application\n    environment\n    state\n    requester\n    createdAt\n    startedAt\n    finishedAt\n    updatedAt\n    startAt\n    dryRun\n    artifact {\n      version\n    }\n    currentStep\n    error\n    plan {\n      steps {\n        name\n        maxRetries\n      }\n    }\n    steps {\n      name\n      state\n      kind\n      position\n      attempts\n      error\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query Wall($failedStates: [DeploymentState!], $since: Time) {\n    activity(first: 200) {\n      ...WallDeployment\n    }\n    failed: deployments(filter: { states: $failedStates, createdAfter: $since }, first: 30) {\n      nodes {\n        ...WallDeployment\n      }\n    }\n    inService: inventory {\n      tenant\n      application\n      environment\n      deployedAt\n    }\n  }\n"): (typeof documents)["\n  query Wall($failedStates: [DeploymentState!], $since: Time) {\n    activity(first: 200) {\n      ...WallDeployment\n    }\n    failed: deployments(filter: { states: $failedStates, createdAfter: $since }, first: 30) {\n      nodes {\n        ...WallDeployment\n      }\n    }\n    inService: inventory {\n      tenant\n      application\n      environment\n      deployedAt\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  subscription WallFeed {\n    activity {\n      kind\n      deployment {\n        ...WallDeployment\n      }\n    }\n  }\n"): (typeof documents)["\n  subscription WallFeed {\n    activity {\n      kind\n      deployment {\n        ...WallDeployment\n      }\n    }\n  }\n"];

export function graphql(source: string) {
  return (documents as any)[source] ?? {};
}

export type DocumentType<TDocumentNode extends DocumentNode<any, any>> = TDocumentNode extends DocumentNode<  infer TType,  any>  ? TType  : never;